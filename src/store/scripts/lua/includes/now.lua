--[[
  Redis TIME in epoch milliseconds: the one clock every script judges due times and expiries by.
]]
local function redisNow()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
