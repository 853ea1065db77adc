--[[
  Take a run slot of a schedule (maxInstances / coalesce across the cluster). Lapsed leases and owed
  claims are dropped first (that is what frees a dead worker's slot). A fresh occurrence counts live
  leases and owed claims alike, so a retry waiting for the slot gets it before newer occurrences; a
  retry counts only live leases. A retry refused the slot (re)claims it in the owed set.

  Input:
    KEYS[1] lease:<id>  zset: lease id -> expiry (Redis ms)
    KEYS[2] owed:<id>   zset: job id of a retry owed a slot -> claim expiry

    ARGV[1] lease id
    ARGV[2] lease ttl ms
    ARGV[3] maxInstances (0 = unlimited)
    ARGV[4] coalesce: '1' | '0'
    ARGV[5] owed id: '' for a fresh occurrence, the job id of a retry owed its run
    ARGV[6] owed claim ttl ms

  Output:
    { granted (1|0), live leases before this one }
]]
--- @include "includes/now"

local now = redisNow()
local ttl = tonumber(ARGV[2])
local owed = ARGV[5]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local live = redis.call('ZCARD', KEYS[1])
local taken = live
if owed == '' then taken = live + redis.call('ZCARD', KEYS[2]) end
local max = tonumber(ARGV[3])
if (ARGV[4] == '1' and taken > 0) or (max > 0 and taken >= max) then
  if owed ~= '' then
    local owedTtl = tonumber(ARGV[6])
    redis.call('ZADD', KEYS[2], now + owedTtl, owed)
    if redis.call('PTTL', KEYS[2]) < owedTtl * 2 then redis.call('PEXPIRE', KEYS[2], owedTtl * 2) end
  end
  return { 0, live }
end
if owed ~= '' then redis.call('ZREM', KEYS[2], owed) end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl * 2 then redis.call('PEXPIRE', KEYS[1], ttl * 2) end
return { 1, live }
