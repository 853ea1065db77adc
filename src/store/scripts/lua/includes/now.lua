--[[
  Redis TIME in epoch milliseconds: the one clock every script judges due times and expiries by.
  `given` (a script's `clock ms` ARGV; tests only, never sent in production): that time instead,
  so a test drives the time the claim and lease scripts judge by. '' or absent: Redis TIME.
]]
local function redisNow(given)
  if given and given ~= '' then return tonumber(given) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
