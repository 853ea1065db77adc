--[[
  Clear an errored schedule (re-defined, or resumed): active again from `next` (left out of `due`
  while it is claimed), or completed when it has none. Its reason is deleted whatever its status.

  Input:
    KEYS[1] state       hash: id -> state row
    KEYS[2] due         zset: id -> next due time
    KEYS[3] inflight    zset: id -> claim lease expiry
    KEYS[4] completed   zset: id -> completion time
    KEYS[5] errors      hash: id -> reason JSON
    KEYS[6] audit:<id>  stream: the schedule's audit trail (includes/audit)

    ARGV[1] id
    ARGV[2] next due time ('' = none: completed)
    ARGV[3] now (ms)
    ARGV[4..7] the audit entry's limit, actor, source, onBehalfOf: `cleared`, with `next` ('' = completed)

  Output:
    1 if it was errored, else 0
]]
--- @include "includes/state"
--- @include "includes/audit"

local id = ARGV[1]
redis.call('HDEL', KEYS[5], id)
local row = redis.call('HGET', KEYS[1], id)
if not row or string.sub(row, 1, 1) ~= 'e' then return 0 end
if ARGV[2] == '' then
  redis.call('ZADD', KEYS[4], ARGV[3], id)
  setStatus(KEYS[1], id, row, 'c')
else
  if not redis.call('ZSCORE', KEYS[3], id) then redis.call('ZADD', KEYS[2], ARGV[2], id) end
  setStatus(KEYS[1], id, row, 'a')
end
audit(KEYS[6], id, 4, 'cleared', { 'next', ARGV[2] })
return 1
