--[[
  Pause an active schedule the way set-status-5 does when it leaves 'a': status `p` in its state row,
  out of `due`, its pending re-schedule (`resched`) dropped. A claimed occurrence completes normally;
  the completion keeps a paused schedule out of `due`. Returns whether it was active.
]]
--- @include "state"

local function pauseActive(stateKey, dueKey, reschedKey, id)
  local row = redis.call('HGET', stateKey, id)
  if not row or string.sub(row, 1, 1) ~= 'a' then return false end
  redis.call('ZREM', dueKey, id)
  redis.call('HDEL', reschedKey, id)
  setStatus(stateKey, id, row, 'p')
  return true
end
