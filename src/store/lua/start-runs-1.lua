--[[
  Start a batch of runs (one or more, all of one partition), in one call (the worker runtime's lean
  path). For each run: apply the schedule's overlap policy on its run slot, hand out the run's fencing
  token, and write its `running` record (or its `skipped` record): facts of its record hash
  (includes/record), from arguments that are already strings.

  The runs' own keys are built here from the partition's key base, as keys.ts names them
  (`<base>:lease:<id>`, ...; all in the partition's slot): a batch of hundreds of runs then carries
  its values only, not 10 keys per run. The per-run names below (K[i], A[i] in the code) are those keys
  and values, one run at a time.

  Overlap policies (A[3]):
    none        no slot is taken (allowAll without an exclusion group): always runs
    skip        runs while fewer than `cap` leases are live (and no retry is owed the slot), else skipped
                (reason `overlap`)
    bufferAll   waits in fire-time order for the slot (output 2: ask again later)
    bufferOne   the same, but only one occurrence waits: another one is skipped (reason `buffer-full`)
    cancelOther every live run is asked to stop (added to `cancelled:<id>`, published on the cancel
                channel), and this occurrence waits for the slot; an older waiter is dropped, and one
                older than a waiting or started newer occurrence is skipped (reason `superseded`)
  A retry owed its run (A[5] set: an attempt after one that started) only counts live leases; when
  refused it claims the next free slot in `owed:<id>` (fresh occurrences are refused while it waits).

  The fencing token is `HINCRBY counts:<id> fence 1`: it increases with every run started of the
  schedule; it is written into the record as `fencingToken`, and finish-runs compares it. A schedule's
  first token starts above the partition's `totals` `fence` (the highest token of a removed schedule,
  kept by remove-12), so a schedule removed and created again under the same id never hands out a
  token that a run of the removed one holds.

  Input:
    KEYS[1] totals              hash: counters summed over every schedule (the partition's)
    ARGV[1] the partition's key base (`{tag}:bb`)
    ARGV[2] lease ttl ms (also the owed claim's and a waiter's heartbeat)
    ARGV[3] history limit
    ARGV[4] cancel channel (pub/sub: a lease id asked to stop)
    then per run: schedule id, A[1], A[3], A[4], A[5], A[6], A[7], A[8], A[13], then the `running`
    patch (the number of its name/value pairs, the pairs, the names it removes), then the `skipped`
    patch (the number of its pairs, the pairs)

  One run's keys and values:
    K[1] lease:<id>          zset: lease id -> expiry (Redis ms)
    K[2] owed:<id>           zset: job id of a retry owed a slot -> claim expiry
    K[3] waiters:<id>        zset: job id buffered for the slot -> fire time (order)
    K[4] waiters:<id>:beats  zset: the same job ids -> heartbeat expiry
    K[5] runs:<id>           hash: occurrence field -> run record JSON of an earlier release (read only)
    K[6] runidx:<id>         zset: occurrence field -> fire time
    K[7] counts:<id>         hash: the schedule's counters (and `fence`, `newest`)
    K[8] totals              (KEYS[1])
    K[9] cancelled:<id>      set: lease ids asked to stop (cancelOther)
    K[10] rec:<id>:          the start of the schedule's record keys (includes/record)

    A[1] lease id
    A[2] lease ttl ms (ARGV[2])
    A[3] overlap: none | skip | bufferOne | bufferAll | cancelOther
    A[4] cap: live runs allowed under `skip` (>= 1)
    A[5] owed: '' for a fresh occurrence, else the job id of a retry owed its run
    A[6] job id (a waiter's member)
    A[7] occurrence field (the fire time, or `m<time>` for a manual run)
    A[8] fire time (record score, waiters' order)
    A[9] the `running` patch's pairs (a table; `startedAt`, `fencingToken`, `buffered` are added here)
    A[10] the `skipped` patch's pairs (a table; `reason` and `finishedAt` are added here)
    A[11] history limit (A[3])
    A[12] cancel channel (ARGV[4])
    A[13] '1' when the caller read no record, taking this for the job's first delivery (its patch
          removes no field): a record past `enqueued` (an attempt of this job lost with its worker, or
          an older job's outcome) sends it back to read it (output 3), before anything is taken; a
          record saying this job already succeeded, was skipped or cancelled refuses it (output 4: the
          same occurrence enqueued again, after its job left BullMQ)
    A[14] the names the `running` patch removes (comma-separated, '' none)

  Output:
    { 1 started | 0 skipped | 2 wait | 3 read the record first | 4 ran already, live leases before this one, fencing token (0 unless started),
      Redis TIME of the start or skip (0 otherwise), skip reason ('' unless skipped) }

  Output, per run (5 values each, in the batch's order): as above; { -1, '', '', 0, error } for a run whose
  step failed (the others are unaffected).

  The record's instants are Redis TIME, the clock `enqueuedAt` is read from (a lower bound of it, read
  before the job was added): the `running` record's `startedAt`, the `skipped` one's `finishedAt`, are
  this call's TIME, so no record says a run started before it was enqueued.
]]
--- @include "includes/now"
--- @include "includes/record"
--- @include "includes/run-slot"

-- Redis TIME, read once per call (the batch is one atomic step), and the numbers every run of the
-- batch writes, formatted once (a number passed to redis.call is formatted with snprintf each time).
local clock, expiry, keepFor, stamp
local function batchNow(ttl)
  if not clock then
    clock = redisNow()
    expiry = tostring(clock + ttl)
    keepFor = tostring(ttl * 2)
    stamp = tostring(clock)
  end
  return clock
end

-- A record of this job saying it ran: the same occurrence enqueued again (a stalled claimant woke
-- after a take-over) once its job left BullMQ. It does not run twice.
local RAN = { succeeded = true, skipped = true, cancelled = true }

local function startRun(K, A)
  local now = 0
  local leaseId, ttl, mode = A[1], tonumber(A[2]), A[3]
  local owed, jobId, field, fireAt = A[5], A[6], A[7], tonumber(A[8])
  local limit = tonumber(A[11])
  local live = 0
  local rec = K[10] .. field

  -- A first delivery finds no record, or an `enqueued` one: anything else is read by the caller first.
  if A[13] == '1' then
    local outcome, ofJob = recordFacts(K[5], rec, field)
    if outcome and outcome ~= '' and outcome ~= 'enqueued' then
      if RAN[outcome] and ofJob == jobId then return { 4, 0, 0, 0, '' } end
      return { 3, 0, 0, 0, '' }
    end
  end

  local function write(set, drop)
    patchRecord(rec, set, drop)
    indexRecord(K[5], K[6], K[10], field, A[8], limit)
  end
  local buffered = false

  local function skip(reason)
    local at = batchNow(ttl)
    local set = A[10]
    set[#set + 1] = 'reason'
    set[#set + 1] = reason
    set[#set + 1] = 'finishedAt'
    set[#set + 1] = stamp
    write(set, '')
    bumpCounters(K[7], K[8], 'skipped')
    return { 0, live, 0, at, reason }
  end

  local function wait()
    redis.call('ZADD', K[3], fireAt, jobId)
    redis.call('ZADD', K[4], now + ttl, jobId)
    keepAlive(K[3], ttl * 3)
    keepAlive(K[4], ttl * 3)
    return { 2, live, 0, 0, '' }
  end

  if mode ~= 'none' then
    now = batchNow(ttl)
    live = liveIn(K[1], now)
    local owing = liveIn(K[2], now)
    if mode ~= 'skip' then dropLapsedWaiters(K[3], K[4], now) end
    if owed ~= '' then
      if live >= math.max(1, tonumber(A[4])) then
        redis.call('ZADD', K[2], now + ttl, owed)
        keepAlive(K[2], ttl * 2)
        return { 2, live, 0, 0, '' }
      end
      redis.call('ZREM', K[2], owed)
    elseif mode == 'skip' then
      if live + owing >= tonumber(A[4]) then return skip('overlap') end
    else
      if mode == 'cancelOther' then
        local newest = tonumber(redis.call('HGET', K[7], 'newest') or '-1')
        local last = redis.call('ZRANGE', K[3], -1, -1, 'WITHSCORES')
        if fireAt < newest or (last[2] and tonumber(last[2]) > fireAt) then
          redis.call('ZREM', K[3], jobId)
          redis.call('ZREM', K[4], jobId)
          return skip('superseded')
        end
        -- Older waiters give way to this one.
        local older = redis.call('ZRANGEBYSCORE', K[3], '-inf', '(' .. fireAt)
        for _, w in ipairs(older) do
          redis.call('ZREM', K[3], w)
          redis.call('ZREM', K[4], w)
        end
      end
      buffered = redis.call('ZSCORE', K[3], jobId) ~= false
      local first = redis.call('ZRANGE', K[3], '0', '0')[1]
      local free = live + owing == 0
      if not (free and (first == nil or first == jobId)) then
        if mode == 'bufferOne' and not buffered and first ~= nil then return skip('buffer-full') end
        if mode == 'cancelOther' then
          -- Each live run is asked to stop (once); this occurrence waits for the slot.
          local running = redis.call('ZRANGE', K[1], 0, -1)
          for _, l in ipairs(running) do
            if redis.call('SADD', K[9], l) == 1 then redis.call('PUBLISH', A[12], l) end
          end
          if #running > 0 then keepAlive(K[9], ttl * 2) end
        end
        return wait()
      end
      if buffered then
        redis.call('ZREM', K[3], jobId)
        redis.call('ZREM', K[4], jobId)
      end
    end
    redis.call('ZADD', K[1], expiry, leaseId)
    if live == 0 then
      redis.call('PEXPIRE', K[1], keepFor) -- a set made just now: it has no expiry yet
    else
      keepAlive(K[1], ttl * 2)
    end
  end

  local token = redis.call('HINCRBY', K[7], 'fence', '1')
  if token == 1 then
    local floor = redis.call('HGET', K[8], 'fence')
    if floor then
      token = tonumber(floor) + 1
      redis.call('HSET', K[7], 'fence', token)
    end
  end
  if mode == 'cancelOther' then
    local newest = tonumber(redis.call('HGET', K[7], 'newest') or '-1')
    if fireAt > newest then redis.call('HSET', K[7], 'newest', A[8]) end
  end
  local at = batchNow(ttl)
  local set = A[9]
  set[#set + 1] = 'startedAt'
  set[#set + 1] = stamp
  set[#set + 1] = 'fencingToken'
  set[#set + 1] = tostring(token)
  if buffered then
    set[#set + 1] = 'buffered'
    set[#set + 1] = '1'
  end
  write(set, A[14])
  return { 1, live, token, at, '' }
end

-- Each run in turn, each under pcall: an error in one (reported in its place) leaves the others.
local base, ttl, limit, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local out = {}
local i = 5
while i <= #ARGV do
  local id = ARGV[i]
  local K = {
    base .. ':lease:' .. id, base .. ':owed:' .. id, base .. ':waiters:' .. id,
    base .. ':waiters:' .. id .. ':beats', base .. ':runs:' .. id, base .. ':runidx:' .. id,
    base .. ':counts:' .. id, KEYS[1], base .. ':cancelled:' .. id, base .. ':rec:' .. id .. ':',
  }
  local running, after = pairsAt(i + 10)
  local drop = ARGV[after]
  local skipped, nextRun = pairsAt(after + 2)
  local A = {
    ARGV[i + 1], ttl, ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[i + 6], ARGV[i + 7],
    running, skipped, limit, channel, ARGV[i + 8], drop,
  }
  i = nextRun
  local ok, r = pcall(startRun, K, A)
  if not ok then r = { -1, '', '', 0, type(r) == 'table' and tostring(r.err) or tostring(r) } end
  for j = 1, 5 do out[#out + 1] = r[j] end
end
return out
