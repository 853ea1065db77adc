--[[
  Take fire slots from the deployment-wide fire-rate budget (`maxFiresPerSecond`). A second holds `cap`
  slots, evenly spaced (the k-th at k * 1000 / cap ms into it); each occurrence takes the first free
  slot, from the second it would fire in, and fires at that slot (or at its own instant, when later).
  Slots before `now + lead` are gone: the caller's add takes up to `lead` ms to land, and a job that
  landed after its slot would become runnable when it lands, in a second counted for other fires.
  So every instant returned is at least `now + lead`, and no second is given more than `cap`. Every
  replica takes from the one hash, so the cap holds across them. Seconds a minute past are forgotten.

  Input:
    KEYS[1] fire-budget   hash: second (epoch s) -> slots of it taken or gone

    ARGV[1] cap: fires per second
    ARGV[2] lead (ms): no instant before Redis time + lead
    ARGV[3..] the instants (ms) the occurrences would fire at, one per occurrence

  Output:
    for each occurrence, in order, the instant (ms) it fires at
]]
--- @include "includes/now"

local now = redisNow()
local cap = tonumber(ARGV[1])
local earliest = now + tonumber(ARGV[2])
local firstSec = math.floor(earliest / 1000)
local gap = 1000 / cap
-- the slots of the earliest second that lie before `earliest`
local gone = math.min(cap, math.ceil((earliest - firstSec * 1000) / gap))
local function taken(sec)
  local used = tonumber(redis.call('HGET', KEYS[1], sec)) or 0
  if sec == firstSec and used < gone then return gone end
  return used
end
local out = {}
-- per starting second, the last second found with room in this call (a burst walks each second once)
local hint = {}
for i = 3, #ARGV do
  local t = tonumber(ARGV[i])
  local first = math.max(math.floor(t / 1000), firstSec)
  local sec = hint[first] or first
  local used = taken(sec)
  while used >= cap do
    sec = sec + 1
    used = taken(sec)
  end
  redis.call('HSET', KEYS[1], sec, used + 1)
  hint[first] = sec
  out[#out + 1] = math.max(t, sec * 1000 + math.floor(used * gap))
end
if redis.call('HLEN', KEYS[1]) > 300 then
  for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
    if tonumber(f) < firstSec - 60 then redis.call('HDEL', KEYS[1], f) end
  end
end
redis.call('PEXPIRE', KEYS[1], 3600000)
return out
