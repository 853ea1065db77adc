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
    ARGV[3...] ids

  Output:
    how many leases were extended
]]
--- @include "includes/now"

local expiry = tostring(redisNow() + tonumber(ARGV[1]))
local suffix = '|' .. ARGV[2]
local n = 0
for i = 3, #ARGV do
  local id = ARGV[i]
  local c = redis.call('HGET', KEYS[2], id)
  if c and string.sub(c, -#suffix) == suffix then
    redis.call('ZADD', KEYS[1], 'XX', expiry, id)
    n = n + 1
  end
end
return n
