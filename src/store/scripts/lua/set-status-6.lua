--[[
  Move a schedule between statuses. Leaving 'a' takes it out of `due` and drops a pending
  re-schedule (a later resume computes a fresh one: a stale one would send it back in time).

  Input:
    KEYS[1] state       hash: id -> state row
    KEYS[2] due         zset: id -> next due time
    KEYS[3] inflight    zset: id -> claim lease expiry
    KEYS[4] resched     hash: id -> next due time decided while claimed
    KEYS[5] claim       hash: id -> `fireAt|token`
    KEYS[6] audit:<id>  stream: the schedule's audit trail (includes/audit)

    ARGV[1] id
    ARGV[2] from: the statuses it may be in (e.g. 'a', 'po')
    ARGV[3] to: the new status
    ARGV[4] next due time when `to` is 'a' ('' = leave `due` alone)
    ARGV[5..8] the audit entry's limit, actor, source, onBehalfOf
    ARGV[9] the audit entry's `op` (e.g. `orphan`, `resume`)

  Output:
    1 done, 0 no such schedule, -1 not in one of `from`, -2 nothing written: it is claimed at or after
    `next` (re-read, and resume after the claimed occurrence). Resumed while claimed (before `next`),
    `next` goes to `resched` for the completion.
]]
--- @include "includes/state"
--- @include "includes/claim"
--- @include "includes/audit"

local id = ARGV[1]
local row = redis.call('HGET', KEYS[1], id)
if not row then return 0 end
if not string.find(ARGV[2], string.sub(row, 1, 1), 1, true) then return -1 end
if ARGV[3] == 'a' then
  if ARGV[4] ~= '' then
    if redis.call('ZSCORE', KEYS[3], id) then
      local at = claimedFireAt(KEYS[5], id)
      if at and tonumber(ARGV[4]) <= at then return -2 end
      redis.call('HSET', KEYS[4], id, ARGV[4])
    else
      redis.call('ZADD', KEYS[2], ARGV[4], id)
    end
  end
else
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[4], id)
end
setStatus(KEYS[1], id, row, ARGV[3])
audit(KEYS[6], id, 5, ARGV[9], {})
return 1
