--[[
  Wait in line for a group, or take a place in it. An exclusion group holds one run at a time; a
  group (`group` option) holds up to `max`. Drops lapsed holders and waiters, then by `overflow`:
    line       (exclusion groups, a group's bufferAll) joins the line if not in it (a ticket from the
               counter: arrival order), refreshes this waiter's heartbeat, and takes a place when one
               is free and this waiter is among the first in line for the free places;
    bufferOne  the same, but refused when another waiter is already in line;
    skip       takes a place when holders and waiters leave one free, else refused (never waits).

  Input:
    KEYS[1] group:<name>          zset: holders' lease ids -> expiry
    KEYS[2] group:<name>:queue    zset: waiting lease id -> arrival ticket
    KEYS[3] group:<name>:waiters  zset: waiting lease id -> heartbeat expiry
    KEYS[4] group:<name>:ticket   counter of arrival tickets

    ARGV[1] lease id
    ARGV[2] ttl ms
    ARGV[3] max holders (optional, default 1)
    ARGV[4] overflow: 'line' | 'bufferOne' | 'skip' (optional, default 'line')
    ARGV[5] clock ms: the time to judge by in place of Redis TIME (tests only; '' or absent: Redis TIME)

  Output:
    Redis TIME when taken (the run's start instant on the clock of its record), 0 while waiting in
    line, -1 when refused (the group is full and this run may not wait)
]]
--- @include "includes/now"

local now = redisNow(ARGV[5])
local id = ARGV[1]
local ttl = tonumber(ARGV[2])
local max = tonumber(ARGV[3] or '1') or 1
local overflow = (ARGV[4] and ARGV[4] ~= '') and ARGV[4] or 'line'
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local dead = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 1000)
if #dead > 0 then
  redis.call('ZREM', KEYS[2], unpack(dead))
  redis.call('ZREM', KEYS[3], unpack(dead))
end
local holders = redis.call('ZCARD', KEYS[1])

local function take()
  redis.call('ZADD', KEYS[1], now + ttl, id)
  redis.call('PEXPIRE', KEYS[1], ttl * 2)
  return now
end

if overflow == 'skip' then
  if redis.call('ZSCORE', KEYS[1], id) then return now end
  if holders + redis.call('ZCARD', KEYS[2]) < max then return take() end
  return -1
end
if not redis.call('ZSCORE', KEYS[2], id) then
  if overflow == 'bufferOne' and redis.call('ZCARD', KEYS[2]) > 0 then return -1 end
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), id)
end
redis.call('ZADD', KEYS[3], now + ttl, id)
for i = 2, 4 do redis.call('PEXPIRE', KEYS[i], ttl * 3) end
if holders < max and redis.call('ZRANK', KEYS[2], id) < max - holders then
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  return take()
end
return 0
