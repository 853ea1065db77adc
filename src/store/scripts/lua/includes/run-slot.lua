--[[
  A schedule's run slot under its overlap policy (start-runs, finish-runs): the live leases
  (`lease:<id>`), the retries owed a slot (`owed:<id>`) and the occurrences buffered for it
  (`waiters:<id>` by fire time, `waiters:<id>:beats` by heartbeat expiry). Lapsed entries are dropped
  first: that is what frees a dead worker's slot and forgets a waiter whose job stopped asking (the
  waiters only under a policy that buffers: `skip` never reads them).
]]

-- The live entries of `set` (leases, or retries owed a slot) at `now`, the lapsed ones dropped first.
-- An empty set, the common case (no run under way), costs one ZCARD.
local function liveIn(set, now)
  local n = redis.call('ZCARD', set)
  if n == 0 then return 0 end
  return n - redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
end

-- Forget the buffered occurrences whose job stopped asking (their heartbeat lapsed).
local function dropLapsedWaiters(waiters, beats, now)
  local dead = redis.call('ZRANGEBYSCORE', beats, '-inf', now, 'LIMIT', 0, 1000)
  if #dead > 0 then
    redis.call('ZREM', waiters, unpack(dead))
    redis.call('ZREM', beats, unpack(dead))
  end
end

-- Keep a key alive for at least `ms` (it expires once nothing refreshes it).
local function keepAlive(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end

-- The job id that should ask for the slot next: the oldest retry owed one, else the first waiter
-- (`waiters` nil: the policy buffers none).
local function nextInLine(owed, waiters)
  local o = redis.call('ZRANGE', owed, '0', '0')[1]
  if o or not waiters then return o or '' end
  return redis.call('ZRANGE', waiters, '0', '0')[1] or ''
end
