--[[
  Extend a held lease (a run slot or an exclusion group).

  Input:
    KEYS[1] lease set   zset: lease id -> expiry (Redis ms)

    ARGV[1] lease id
    ARGV[2] ttl ms
    ARGV[3] clock ms: the time to judge by in place of Redis TIME (tests only; '' or absent: Redis TIME)

  Output:
    1, or 0 when the lease is gone (it lapsed and another script removed it: its slot may have been
    given away; the caller treats its run as lost the lease)
]]
--- @include "includes/now"

local now = redisNow(ARGV[3])
local ttl = tonumber(ARGV[2])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl * 2 then redis.call('PEXPIRE', KEYS[1], ttl * 2) end
return 1
