--[[
  Wait in line for an exclusion group, or take it. Drops lapsed holders and waiters, joins the line
  if not in it (a ticket from the counter: arrival order), refreshes this waiter's heartbeat, and takes
  the group when it is free and this waiter is first in line.

  Input:
    KEYS[1] group:<name>          zset: the holder's lease id -> expiry
    KEYS[2] group:<name>:queue    zset: waiting lease id -> arrival ticket
    KEYS[3] group:<name>:waiters  zset: waiting lease id -> heartbeat expiry
    KEYS[4] group:<name>:ticket   counter of arrival tickets

    ARGV[1] lease id
    ARGV[2] ttl ms

  Output:
    Redis TIME when taken (the run's start instant on the clock of its record), else 0
]]
--- @include "includes/now"

local now = redisNow()
local id = ARGV[1]
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local dead = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 1000)
if #dead > 0 then
  redis.call('ZREM', KEYS[2], unpack(dead))
  redis.call('ZREM', KEYS[3], unpack(dead))
end
if not redis.call('ZSCORE', KEYS[2], id) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), id)
end
redis.call('ZADD', KEYS[3], now + ttl, id)
for i = 2, 4 do redis.call('PEXPIRE', KEYS[i], ttl * 3) end
if redis.call('ZCARD', KEYS[1]) == 0 and redis.call('ZRANGE', KEYS[2], 0, 0)[1] == id then
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZADD', KEYS[1], now + ttl, id)
  redis.call('PEXPIRE', KEYS[1], ttl * 2)
  return now
end
return 0
