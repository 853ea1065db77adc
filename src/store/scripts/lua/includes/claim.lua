--[[
  A claim (the `claim` hash): `fireAt|token`. The fire time of the schedule's current claim, or nil.
]]
local function claimedFireAt(claimKey, id)
  local c = redis.call('HGET', claimKey, id)
  return c and tonumber(string.match(c, '^([^|]*)'))
end
