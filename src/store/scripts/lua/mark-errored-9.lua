--[[
  Mark a schedule errored (state 'e') with its reason, out of `due` and `completed` so that it is never
  claimed in a loop; count it in `totals.errored`.
  From a claim (ARGV[2] = `fireAt|token`): only while the claim is still ours (the completion's
  compare-and-set: a stale claimant cannot clobber a take-over) and the schedule still active; the
  claim is completed without a run either way. When it was re-defined or resumed while claimed
  (`resched` holds its new next time), the new definition is not blamed: it goes back to `due` at that
  time (or completes on '-1'), as the completion would have put it.
  Without a claim (at definition: its first fire time cannot be planned): from any status.

  Input:
    KEYS[1] state       hash: id -> state row
    KEYS[2] due         zset: id -> next due time
    KEYS[3] inflight    zset: id -> claim lease expiry
    KEYS[4] claim       hash: id -> `fireAt|token`
    KEYS[5] resched     hash: id -> next due time decided while claimed
    KEYS[6] completed   zset: id -> completion time
    KEYS[7] errors      hash: id -> `{ reason, at, fireAt }` JSON
    KEYS[8] totals      hash: its `errored` field counts markings
    KEYS[9] audit:<id>  stream: the schedule's audit trail (includes/audit)

    ARGV[1] id
    ARGV[2] claim `fireAt|token` ('' = none)
    ARGV[3] error JSON `{ reason, at, fireAt }`
    ARGV[4] now (ms)
    ARGV[5..8] the audit entry's limit, actor, source, onBehalfOf: `errored`, with `reason` and `fireAt`
    ARGV[9] the reason (text)
    ARGV[10] the occurrence it failed on ('' = none)

  Output:
    1 marked errored; 0 not (claim lost, schedule gone, not active, re-defined meanwhile)
]]
--- @include "includes/state"
--- @include "includes/audit"

local id = ARGV[1]
local fromClaim = ARGV[2] ~= ''
if fromClaim then
  if redis.call('HGET', KEYS[4], id) ~= ARGV[2] then return 0 end
  redis.call('HDEL', KEYS[4], id)
  redis.call('ZREM', KEYS[3], id)
end
local row = redis.call('HGET', KEYS[1], id)
if not row then return 0 end
local rs = redis.call('HGET', KEYS[5], id)
if rs then redis.call('HDEL', KEYS[5], id) end
if fromClaim then
  if string.sub(row, 1, 1) ~= 'a' then return 0 end
  if rs then
    if rs == '-1' then
      redis.call('ZADD', KEYS[6], ARGV[4], id)
      setStatus(KEYS[1], id, row, 'c')
    else
      redis.call('ZADD', KEYS[2], rs, id)
    end
    return 0
  end
end
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[6], id)
redis.call('HSET', KEYS[7], id, ARGV[3])
setStatus(KEYS[1], id, row, 'e')
redis.call('HINCRBY', KEYS[8], 'errored', 1)
local fields = { 'reason', ARGV[9] }
if ARGV[10] ~= '' then fields = { 'reason', ARGV[9], 'fireAt', ARGV[10] } end
audit(KEYS[9], id, 5, 'errored', fields)
return 1
