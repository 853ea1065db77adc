--[[
  Start one run of an occurrence, in one call (the worker runtime's lean path): apply the schedule's
  overlap policy on its run slot, hand out the run's fencing token, and write its `running` record
  (or its `skipped` record).

  Overlap policies (ARGV[3]):
    none        no slot is taken (allowAll without an exclusion group): always runs
    skip        runs while fewer than `cap` leases are live (and no retry is owed the slot), else skipped
                (reason `overlap`)
    bufferAll   waits in fire-time order for the slot (output 2: ask again later)
    bufferOne   the same, but only one occurrence waits: another one is skipped (reason `buffer-full`)
    cancelOther every live run is asked to stop (added to `cancelled:<id>`, published on the cancel
                channel), and this occurrence waits for the slot; an older waiter is dropped, and one
                older than a waiting or started newer occurrence is skipped (reason `superseded`)
  A retry owed its run (ARGV[5] set: an attempt after one that started) only counts live leases; when
  refused it claims the next free slot in `owed:<id>` (fresh occurrences are refused while it waits).

  The fencing token is `HINCRBY counts:<id> fence 1`: it increases with every run started of the
  schedule; it is written into the record as `fencingToken`, and finish-run compares it.

  Input:
    KEYS[1] lease:<id>          zset: lease id -> expiry (Redis ms)
    KEYS[2] owed:<id>           zset: job id of a retry owed a slot -> claim expiry
    KEYS[3] waiters:<id>        zset: job id buffered for the slot -> fire time (order)
    KEYS[4] waiters:<id>:beats  zset: the same job ids -> heartbeat expiry
    KEYS[5] runs:<id>           hash: occurrence field -> run record JSON
    KEYS[6] runidx:<id>         zset: occurrence field -> fire time
    KEYS[7] counts:<id>         hash: the schedule's counters (and `fence`, `newest`)
    KEYS[8] totals              hash: counters summed over every schedule
    KEYS[9] cancelled:<id>      set: lease ids asked to stop (cancelOther)

    ARGV[1] lease id
    ARGV[2] lease ttl ms (also the owed claim's and a waiter's heartbeat)
    ARGV[3] overlap: none | skip | bufferOne | bufferAll | cancelOther
    ARGV[4] cap: live runs allowed under `skip` (>= 1)
    ARGV[5] owed: '' for a fresh occurrence, else the job id of a retry owed its run
    ARGV[6] job id (a waiter's member)
    ARGV[7] occurrence field (the fire time, or `m<time>` for a manual run)
    ARGV[8] fire time (record score, waiters' order)
    ARGV[9] the `running` patch JSON (the token is added here)
    ARGV[10] the `skipped` patch JSON (the reason is added here)
    ARGV[11] history limit
    ARGV[12] cancel channel (pub/sub: a lease id asked to stop)
    ARGV[13] '1' when the caller read no record, taking this for the job's first delivery (its patch
             removes no field): a record past `enqueued` (an attempt of this job lost with its worker, or
             an older job's outcome) sends it back to read it (output 3), before anything is taken

  Output:
    { 1 started | 0 skipped | 2 wait | 3 read the record first, live leases before this one, fencing token (0 unless started),
      skip reason ('' unless skipped) }
]]
--- @include "includes/now"
--- @include "includes/record"
--- @include "includes/run-slot"

local now = 0
local leaseId, ttl, mode = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local owed, jobId, field, fireAt = ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[8])
local limit = tonumber(ARGV[11])
local live = 0

-- The record, read once when the caller read none (a first delivery), and written from it.
local rec = nil
if ARGV[13] == '1' then
  rec = readRecord(KEYS[5], field)
  if rec and rec.outcome ~= nil and rec.outcome ~= 'enqueued' then
    return { 3, 0, 0, '' }
  end
end

local function write(patch)
  if rec then
    writeReadRecord(KEYS[5], KEYS[6], field, ARGV[8], rec, patch, limit)
  else
    writeRecord(KEYS[5], KEYS[6], field, ARGV[8], patch, limit)
  end
end
local buffered = false

local function skip(reason)
  local patch = cjson.decode(ARGV[10])
  patch.reason = reason
  write(patch)
  bumpCounters(KEYS[7], KEYS[8], 'skipped')
  return { 0, live, 0, reason }
end

local function wait()
  redis.call('ZADD', KEYS[3], fireAt, jobId)
  redis.call('ZADD', KEYS[4], now + ttl, jobId)
  keepAlive(KEYS[3], ttl * 3)
  keepAlive(KEYS[4], ttl * 3)
  return { 2, live, 0, '' }
end

if mode ~= 'none' then
  now = redisNow()
  if mode == 'skip' then
    dropLapsed(KEYS[1], KEYS[2], nil, nil, now)
  else
    dropLapsed(KEYS[1], KEYS[2], KEYS[3], KEYS[4], now)
  end
  live = redis.call('ZCARD', KEYS[1])
  if owed ~= '' then
    if live >= math.max(1, tonumber(ARGV[4])) then
      redis.call('ZADD', KEYS[2], now + ttl, owed)
      keepAlive(KEYS[2], ttl * 2)
      return { 2, live, 0, '' }
    end
    redis.call('ZREM', KEYS[2], owed)
  elseif mode == 'skip' then
    if live + redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return skip('overlap') end
  else
    if mode == 'cancelOther' then
      local newest = tonumber(redis.call('HGET', KEYS[7], 'newest') or '-1')
      local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
      if fireAt < newest or (last[2] and tonumber(last[2]) > fireAt) then
        redis.call('ZREM', KEYS[3], jobId)
        redis.call('ZREM', KEYS[4], jobId)
        return skip('superseded')
      end
      -- Older waiters give way to this one.
      local older = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. fireAt)
      for _, w in ipairs(older) do
        redis.call('ZREM', KEYS[3], w)
        redis.call('ZREM', KEYS[4], w)
      end
    end
    buffered = redis.call('ZSCORE', KEYS[3], jobId) ~= false
    local first = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
    local free = live + redis.call('ZCARD', KEYS[2]) == 0
    if not (free and (first == nil or first == jobId)) then
      if mode == 'bufferOne' and not buffered and first ~= nil then return skip('buffer-full') end
      if mode == 'cancelOther' then
        -- Each live run is asked to stop (once); this occurrence waits for the slot.
        local running = redis.call('ZRANGE', KEYS[1], 0, -1)
        for _, l in ipairs(running) do
          if redis.call('SADD', KEYS[9], l) == 1 then redis.call('PUBLISH', ARGV[12], l) end
        end
        if #running > 0 then keepAlive(KEYS[9], ttl * 2) end
      end
      return wait()
    end
    if buffered then
      redis.call('ZREM', KEYS[3], jobId)
      redis.call('ZREM', KEYS[4], jobId)
    end
  end
  redis.call('ZADD', KEYS[1], now + ttl, leaseId)
  keepAlive(KEYS[1], ttl * 2)
end

local token = redis.call('HINCRBY', KEYS[7], 'fence', 1)
if mode == 'cancelOther' then
  local newest = tonumber(redis.call('HGET', KEYS[7], 'newest') or '-1')
  if fireAt > newest then redis.call('HSET', KEYS[7], 'newest', ARGV[8]) end
end
local patch = cjson.decode(ARGV[9])
patch.fencingToken = token
if buffered then patch.buffered = true end
write(patch)
return { 1, live, token, '' }
