--[[
  Extend the leases of claims still held by one claim token (a replica whose occurrences wait for
  their fire time, or whose enqueue is slow, keeps them while it lives; once it dies, they lapse
  within one lease and any replica takes them over). A claim completed, or taken over after a lapse,
  no longer carries the token and is left alone.

  Input:
    KEYS[1] inflight    zset: id -> claim lease expiry
    KEYS[2] claim       hash: id -> `fireAt|token`

    ARGV[1] lease ms
    ARGV[2] token
    ARGV[3] clock ms: the time to judge by in place of Redis TIME (tests only; '' = Redis TIME)
    ARGV[4...] ids

  Output:
    the ids whose claim is no longer held by the token (completed, or taken over), in the order given;
    every other one was extended (also one whose lease lapsed that no replica took over yet: it is
    still this token's)
]]
--- @include "includes/now"

local expiry = tostring(redisNow(ARGV[3]) + tonumber(ARGV[1]))
local suffix = '|' .. ARGV[2]
local n = #ARGV - 3
if n <= 0 then return {} end
-- one read of every claim and one write of every lease still held: a renewal runs every few hundred ms
-- for each claim a replica holds, so its cost is per call, not per claim
local claims = redis.call('HMGET', KEYS[2], unpack(ARGV, 4))
local held, lost = {}, {}
for i = 1, n do
  local id = ARGV[i + 3]
  local c = claims[i]
  if c and string.sub(c, -#suffix) == suffix then
    held[#held + 1] = expiry
    held[#held + 1] = id
  else
    lost[#lost + 1] = id
  end
end
-- (a batch holds at most 4,000 claims; 2,000 values per ZADD keep unpack well inside Lua's stack)
for i = 1, #held, 2000 do
  redis.call('ZADD', KEYS[1], 'XX', unpack(held, i, math.min(i + 1999, #held)))
end
return lost
