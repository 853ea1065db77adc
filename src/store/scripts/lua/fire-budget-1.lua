--[[
  Take fire slots from the deployment-wide fire-rate budget (`maxFiresPerSecond`): each occurrence is
  given the first second, from the one it would fire in, that has fired fewer than the cap, and fires at
  the start of that second (or at its own instant, when that is its own second). Every replica takes
  from the one hash, so the cap holds across them. An occurrence already late counts in the current
  second. Seconds a minute past are forgotten.

  Input:
    KEYS[1] fire-budget   hash: second (epoch s) -> fires given to it

    ARGV[1] cap: fires per second
    ARGV[2..] the instants (ms) the occurrences would fire at, one per occurrence

  Output:
    for each occurrence, in order, the instant (ms) it fires at
]]
--- @include "includes/now"

local now = redisNow()
local current = math.floor(now / 1000)
local cap = tonumber(ARGV[1])
local out = {}
-- per starting second, the last second found with room in this call (a burst walks each second once)
local hint = {}
for i = 2, #ARGV do
  local t = tonumber(ARGV[i])
  local first = math.max(math.floor(t / 1000), current)
  local sec = hint[first] or first
  while (tonumber(redis.call('HGET', KEYS[1], sec)) or 0) >= cap do sec = sec + 1 end
  redis.call('HINCRBY', KEYS[1], sec, 1)
  hint[first] = sec
  out[#out + 1] = math.max(t, sec * 1000)
end
if redis.call('HLEN', KEYS[1]) > 300 then
  for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
    if tonumber(f) < current - 60 then redis.call('HDEL', KEYS[1], f) end
  end
end
redis.call('PEXPIRE', KEYS[1], 3600000)
return out
