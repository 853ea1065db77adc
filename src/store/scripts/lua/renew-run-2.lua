--[[
  Extend a run's lease on its schedule's slot, unless it was asked to stop (cancelOther).

  Input:
    KEYS[1] lease:<id>      zset: lease id -> expiry (Redis ms)
    KEYS[2] cancelled:<id>  set: lease ids asked to stop

    ARGV[1] lease id
    ARGV[2] ttl ms
    ARGV[3] clock ms: the time to judge by in place of Redis TIME (tests only; '' or absent: Redis TIME)

  Output:
    1 renewed, 0 the lease is gone (it lapsed and may have been given away), -1 asked to stop (the
    lease is renewed: it is held until the run gives it back)
]]
--- @include "includes/now"

local now = redisNow(ARGV[3])
local ttl = tonumber(ARGV[2])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl * 2 then redis.call('PEXPIRE', KEYS[1], ttl * 2) end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return -1 end
return 1
