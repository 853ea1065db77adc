// Lua scripts behind run leases and exclusion groups. Every script judges expiry by Redis `TIME`,
// so workers with skewed clocks agree. A lease is a member of a sorted set scored by its expiry (ms);
// a lapsed member is removed by the next script that looks, which is what frees a dead worker's slot.

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Take a run slot of a schedule. KEYS: lease set, owed set (retries owed a slot, by claim expiry).
 * ARGV: lease id, ttl ms, maxInstances (0 = unlimited), coalesce ('1' | '0'), owed id ('' for a
 * fresh occurrence; the job id of a retry owed its run), owed claim ttl ms. A fresh occurrence counts
 * live leases and owed claims alike, so a retry waiting for the slot gets it before newer
 * occurrences; a retry counts only live leases. A retry refused the slot (re)claims it. Returns
 * { granted (1|0), live leases before this one }.
 */
export const ACQUIRE_SLOT = `${NOW}
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
`;

/**
 * Extend a held lease. KEYS: lease set. ARGV: lease id, ttl ms. Returns 1, or 0 when the lease is
 * gone (it lapsed and another script removed it: its slot may have been given away).
 */
export const RENEW = `${NOW}
local ttl = tonumber(ARGV[2])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl * 2 then redis.call('PEXPIRE', KEYS[1], ttl * 2) end
return 1
`;

/**
 * Wait in line for an exclusion group, or take it. KEYS: holder set, queue (by ticket), waiters
 * (by heartbeat expiry), ticket counter. ARGV: lease id, ttl ms. Drops lapsed holders and waiters,
 * joins the queue if not in it, refreshes this waiter's heartbeat, and takes the group when it is
 * free and this waiter is first in line. Returns 1 when taken, else 0.
 */
export const TRY_GROUP = `${NOW}
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
  return 1
end
return 0
`;

/** Leave an exclusion group's line. KEYS: queue, waiters. ARGV: lease id. */
export const LEAVE_GROUP_QUEUE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;

/** Count the live leases of a set. KEYS: lease set. */
export const COUNT_LIVE = `${NOW}
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`;
