--[[
  Start a batch of runs (one or more, all of one partition), in one call (the worker runtime's lean
  path). For each run: apply the schedule's overlap policy on its run slot, hand out the run's fencing
  token, and write its `running` record (or its `skipped` record): facts of its record hash
  (includes/record), from arguments that are already strings.

  The runs' own keys are built here from the partition's key base, as keys.ts names them
  (`<base>:lease:<id>`, ...; all in the partition's slot): a batch of hundreds of runs then carries
  its values only, not 10 keys per run. Each run's keys are built when its path needs them.

  Overlap policies (ARGV[i + 2]):
    none        no slot is taken (allowAll without an exclusion group): always runs
    skip        runs while fewer than `cap` leases are live (and no retry is owed the slot), else skipped
                (reason `overlap`)
    bufferAll   waits in fire-time order for the slot (output 2: ask again later)
    bufferOne   the same, but only one occurrence waits: another one is skipped (reason `buffer-full`)
    cancelOther every live run is asked to stop (added to `cancelled:<id>`, published on the cancel
                channel), and this occurrence waits for the slot; an older waiter is dropped, and one
                older than a waiting or started newer occurrence is skipped (reason `superseded`)
  A retry owed its run (flag `o`: an attempt after one that started) only counts live leases; when
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
    ARGV[5] how long a schedule's start marks are kept after their last write (ms; the ledger's)
    then per run, from ARGV[i]:
      i      schedule id
      i + 1  lease id
      i + 2  overlap: none | skip | bufferOne | bufferAll | cancelOther
      i + 3  cap: live runs allowed under `skip` (>= 1)
      i + 4  job id (a waiter's member; with `o`, the retry owed its run)
      i + 5  fire time (record score, waiters' order; the occurrence field, but with `m` or `b`)
      i + 6  flags, one letter each: `f` the caller read no record, taking this for the job's first
             delivery (its patch removes no field): a record past `enqueued` (an attempt of this job
             lost with its worker, or an older job's outcome) sends it back to read it (output 3),
             before anything is taken; a record saying this job already succeeded, was skipped or
             cancelled refuses it (output 4: the same occurrence enqueued again, after its job left
             BullMQ). `w`: the `running` record is written here, its facts following (below); without
             it the caller writes it behind (see Written behind) and sends no facts at all. `o`: a
             retry owed its run (its job id, an attempt after one that started); without it a fresh
             occurrence. `m` / `b`: the occurrence field is `m<fire time>` (a manual run) /
             `b<fire time>` (a backfilled one); without either it is the fire time
      i + 7  the start mark: '' none; `a<stamp>` always, `r<stamp>` only when the occurrence has an
             entry in `taken:<id>` (a claim of it was taken over); `<stamp>` names this add of the
             job (BullMQ's `timestamp`). The occurrence's first start (or skip) writes its stamp
             there; a delivery of another add of the same job id is refused (output 5, below)
      with `w` only: i + 8 the number of name/value pairs only the `skipped` record sets, i + 9
             the number both records set (the job's facts: queue, job id, kind), i + 10 the number
             only the `running` record sets; then those pairs in that order (each record's facts are
             one stretch of ARGV); then the names the `running` record removes (comma-separated, ''
             none). The outcomes are written here (`running`, `skipped`), and so are the `running`
             record's `startedAt`, `fencingToken`, `buffered` and the `skipped` one's `reason` and
             `finishedAt`.
    A run without `w` is 8 values: the lean path of the worker runtime's default, whose records
    are written behind. Its `skipped` record (and a refusal's) is written here without the job's
    facts; where the record is not this job's `enqueued` one (which holds them), the skip's reason
    ends in `,nofacts` and the caller writes them (queue, job id, kind) after.

  Written behind: a run whose `running` record the caller writes later (the worker runtime's default:
  with its outcome when it ends within `recordLagMs`, else by its flush) is decided here as any other
  (slot, token, start mark), but its record is neither written nor indexed here: the start checks a
  first delivery's record with one HMGET, and the record is indexed by whoever writes it (the
  completion already did for a scheduled occurrence; finish-runs-5 otherwise). A start that skips
  writes its `skipped` record here, as before.

  The run's keys, built from the base and its id: lease:<id> (zset: lease id -> expiry, Redis ms),
  owed:<id> (zset: job id of a retry owed a slot -> claim expiry), waiters:<id> (zset: job id buffered
  for the slot -> fire time) and waiters:<id>:beats (the same job ids -> heartbeat expiry), runs:<id>
  (hash: occurrence field -> run record JSON of an earlier release, read only), runidx:<id> (zset:
  occurrence field -> fire time), counts:<id> (hash: the schedule's counters, `fence`, `newest`),
  cancelled:<id> (set: lease ids asked to stop), rec:<id>:<field> (the record, includes/record).
  The outcomes written here (`running`, `skipped`) are never `enqueued`: the merge rule is HSET/HDEL.

  Start marks (`taken:<id>`, hash: occurrence field -> stamp, '' while none started): the promise
  that an occurrence enqueued again by an enqueuer that lost it (a claimant stalled past its lease, a
  backfill stalled past its owed time) does not run twice rests on them, not on the record (trimmed
  at `historyLimit`) nor on the job (BullMQ's retention). Written only for occurrences more than one
  enqueuer may add: a backfill's and a catch-up's (their owed runs may be swept), and one whose claim
  was taken over (`retake-3` writes its entry first). A refused delivery writes a `skipped` record
  (reason `ran-already`) only where no record says more; the key expires with the ledger.

  Output:
    { 1 started | 0 skipped | 2 wait | 3 read the record first | 4 ran already | 5 refused: another
      add of its job id started (or skipped) the occurrence, live leases before this one, fencing token (0 unless started),
      Redis TIME of the start or skip (0 otherwise), skip reason ('' unless skipped; a start written
      behind: 'buffered' when it waited for the slot, and ',facts' when the record is this job's
      `enqueued` one, holding its queue, job id and kind already) }

  Output, per run (5 values each, in the batch's order): as above; { -1, '', '', 0, error } for a run whose
  step failed (the others are unaffected).

  The record's instants are Redis TIME, the clock `enqueuedAt` is read from (a lower bound of it, read
  before the job was added): the `running` record's `startedAt`, the `skipped` one's `finishedAt`, are
  this call's TIME, so no record says a run started before it was enqueued.
]]
--- @include "includes/now"
--- @include "includes/history"
--- @include "includes/old-facts"
--- @include "includes/batch"
--- @include "includes/run-slot"

-- Locals, not globals, on the per-run path: a global (`redis`, `ARGV`) is a hash look-up at each use.
local rcall, argv = redis.call, ARGV
local base, ttl, limit, channel = argv[1], tonumber(argv[2]), tonumber(argv[3]), argv[4]
local LEDGER_TTL = argv[5]
local pre = base .. ':' -- every run key is `<base>:<kind>:<id>...`
local sums = {} -- the batch's counters (skips), added to the totals at the end

-- Redis TIME, read once per call (the batch is one atomic step), and the numbers every run of the
-- batch writes, formatted once (a number passed to redis.call is formatted with snprintf each time).
local clock, expiry, keepFor, stamp
local function batchNow()
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

local slack = trimSlack(limit)

-- The partition's `totals` `fence` (the highest token of a removed schedule), read once per call:
-- nothing in this call changes it. false: none.
local floorRead, floorValue = false, false
local function fenceFloor()
  if not floorRead then
    floorValue = rcall('HGET', KEYS[1], 'fence')
    floorRead = true
  end
  return floorValue
end

-- The schedule's record index, `runidx:<id>` (built where a path needs it: most starts do not).
local function indexKey(id)
  return pre .. 'runidx:' .. id
end

-- Trim the history (includes/history, its keys built only here).
local function trim(id)
  trimHistory(pre .. 'runs:' .. id, indexKey(id), pre .. 'rec:' .. id .. ':', limit)
end

-- Index a record this call wrote (`known`: its entry was added, `added` true, or found, before):
-- a skip's as includes/record's writeRecord; a start's, whose token counts the schedule's starts,
-- with the trim checked at every slack-th start (includes/history).
local function index(id, field, score, token, known, added)
  if not known then added = rcall('ZADD', indexKey(id), 'NX', score, field) == 1 end
  if token then
    if token % slack == 0 then trim(id) end
  elseif added then
    trim(id)
  end
end

-- The run's `skipped` record (its facts ARGV[s0 .. s1]) and counter. The outcomes this script writes
-- are never `enqueued`: the merge rule is a plain HSET.
-- `bare`: the facts were not sent (a run without `w`) and the record holds no job's facts: the
-- reason says so (`,nofacts`), for the caller to write them.
local function skip(id, rec, counts, field, score, s0, s1, live, reason, known, added, bare)
  local at = batchNow()
  rcall('HSET', rec, 'outcome', 'skipped', 'reason', reason, 'finishedAt', stamp, unpack(argv, s0, s1))
  index(id, field, score, nil, known, added)
  bumpBatched(counts, sums, 'skipped')
  return 0, live, 0, at, bare and reason .. ',nofacts' or reason
end

-- A delivery of another add of the job id (output 5): a `skipped` record (reason `ran-already`) where
-- none says more, so that the refusal shows in the occurrence's record; nothing else is taken.
local function refuse(rec, counts, id, field, score, s0, s1, bare)
  local outcome = rcall('HGET', rec, 'outcome')
  if not outcome or outcome == 'enqueued' then
    skip(id, rec, counts, field, score, s0, s1, 0, 'ran-already', false, false)
    if bare then return 5, 0, 0, batchNow(), 'ran-already,nofacts' end
  end
  return 5, 0, 0, batchNow(), 'ran-already'
end

-- The occurrence's start mark: this add's stamp, kept as long as the ledger.
local function markTaken(markKey, field, stamp)
  if not markKey then return end
  rcall('HSET', markKey, field, stamp)
  rcall('PEXPIRE', markKey, LEDGER_TTL)
end

-- Buffer the job for the slot, in fire-time order, with its heartbeat.
local function wait(waiters, beats, score, jobId, now, live)
  rcall('ZADD', waiters, score, jobId)
  rcall('ZADD', beats, now + ttl, jobId)
  keepAlive(waiters, ttl * 3)
  keepAlive(beats, ttl * 3)
  return 2, live, 0, 0, ''
end

-- One run, its values from ARGV[i] on (the layout above; r0 .. r1 the `running` record's facts, s0 ..
-- s1 the `skipped` one's, `drop` the names the `running` record removes). Returns its 5 output values.
local function startRun(i, f, r0, r1, drop, s0, s1)
  -- `f` the caller read no record (a first delivery); without `w` the record is written behind
  local first, behind = f.f == true, not f.w
  local id, leaseId, mode, jobId, score = argv[i], argv[i + 1], argv[i + 2], argv[i + 4], argv[i + 5]
  local owed = f.o and jobId or ''
  local field = f.lane and f.lane .. score or score
  local rec = pre .. 'rec:' .. id .. ':' .. field
  local counts = pre .. 'counts:' .. id

  -- A first delivery finds no record, or an `enqueued` one: anything else is read by the caller first.
  -- Every record, of either form, is indexed: an occurrence whose index entry this adds has none,
  -- and that is the whole check. Only where the start then writes a record whatever it decides (a
  -- fresh occurrence under `none` or `skip`: `running` or `skipped`), so no entry is left without one.
  -- The start mark (see Start marks): another add of this job id took the occurrence already.
  -- Only a first delivery is refused (a retry of the add that ran has passed here before); the mark
  -- is written where there is none, or only the entry of a take-over.
  local markKey, stampOf = false, false
  local mark = argv[i + 7]
  if mark ~= '' then
    local key = pre .. 'taken:' .. id
    local seen = rcall('HGET', key, field)
    if seen and seen ~= '' then
      if first and seen ~= string.sub(mark, 2) then
        return refuse(rec, counts, id, field, score, s0, s1, behind)
      end
    elseif seen or string.byte(mark) == 97 then -- `a`: every start is marked
      markKey, stampOf = key, string.sub(mark, 2)
    end
  end

  local known, added = false, false
  if not behind and first and owed == '' and (mode == 'none' or mode == 'skip') then
    known = true
    added = rcall('ZADD', indexKey(id), 'NX', score, field) == 1
  end
  -- `facts`: the record is this job's `enqueued` one, which holds the job's facts (queue, job id,
  -- kind) already: a start written behind says so, and its caller does not send them again
  local facts = false
  if first and not added then
    local f = rcall('HMGET', rec, 'outcome', 'jobId')
    local outcome, ofJob = f[1], f[2]
    if not (outcome or ofJob) then outcome, ofJob = oldFacts(pre .. 'runs:' .. id, field) end
    if outcome and outcome ~= '' and outcome ~= 'enqueued' then
      if RAN[outcome] and ofJob == jobId then return 4, 0, 0, 0, '' end
      return 3, 0, 0, 0, ''
    end
    facts = f[1] == 'enqueued' and f[2] == jobId
  end
  local bare = behind and not facts -- a skip's record then lacks the job's facts (see the layout)

  local live = 0
  local buffered = false
  if mode ~= 'none' then
    local now = batchNow()
    local lease, owedSet = pre .. 'lease:' .. id, pre .. 'owed:' .. id
    live = liveIn(lease, now)
    local owing = liveIn(owedSet, now)
    local waiters, beats
    if mode ~= 'skip' then
      waiters, beats = pre .. 'waiters:' .. id, pre .. 'waiters:' .. id .. ':beats'
      dropLapsedWaiters(waiters, beats, now)
    end
    if owed ~= '' then
      if live >= math.max(1, countOf(argv[i + 3])) then
        rcall('ZADD', owedSet, now + ttl, owed)
        keepAlive(owedSet, ttl * 2)
        return 2, live, 0, 0, ''
      end
      rcall('ZREM', owedSet, owed)
    elseif mode == 'skip' then
      if live + owing >= countOf(argv[i + 3]) then
        markTaken(markKey, field, stampOf)
        return skip(id, rec, counts, field, score, s0, s1, live, 'overlap', known, added, bare)
      end
    else
      if mode == 'cancelOther' then
        local fireAt = tonumber(score)
        local newest = tonumber(rcall('HGET', counts, 'newest') or '-1')
        local last = rcall('ZRANGE', waiters, -1, -1, 'WITHSCORES')
        if fireAt < newest or (last[2] and tonumber(last[2]) > fireAt) then
          rcall('ZREM', waiters, jobId)
          rcall('ZREM', beats, jobId)
          markTaken(markKey, field, stampOf)
          return skip(id, rec, counts, field, score, s0, s1, live, 'superseded', known, added, bare)
        end
        -- Older waiters give way to this one.
        local older = rcall('ZRANGEBYSCORE', waiters, '-inf', '(' .. score)
        for _, w in ipairs(older) do
          rcall('ZREM', waiters, w)
          rcall('ZREM', beats, w)
        end
      end
      buffered = rcall('ZSCORE', waiters, jobId) ~= false
      local first = rcall('ZRANGE', waiters, '0', '0')[1]
      local free = live + owing == 0
      if not (free and (first == nil or first == jobId)) then
        if mode == 'bufferOne' and not buffered and first ~= nil then
          markTaken(markKey, field, stampOf)
          return skip(id, rec, counts, field, score, s0, s1, live, 'buffer-full', known, added, bare)
        end
        if mode == 'cancelOther' then
          -- Each live run is asked to stop (once); this occurrence waits for the slot.
          local cancelled = pre .. 'cancelled:' .. id
          local running = rcall('ZRANGE', lease, 0, -1)
          for _, l in ipairs(running) do
            if rcall('SADD', cancelled, l) == 1 then rcall('PUBLISH', channel, l) end
          end
          if #running > 0 then keepAlive(cancelled, ttl * 2) end
        end
        return wait(waiters, beats, score, jobId, now, live)
      end
      if buffered then
        rcall('ZREM', waiters, jobId)
        rcall('ZREM', beats, jobId)
      end
    end
    rcall('ZADD', lease, expiry, leaseId)
    if live == 0 then
      rcall('PEXPIRE', lease, keepFor) -- a set made just now: it has no expiry yet
    else
      keepAlive(lease, ttl * 2)
    end
  end

  markTaken(markKey, field, stampOf)
  local token = rcall('HINCRBY', counts, 'fence', '1')
  if token == 1 then
    local floor = fenceFloor()
    if floor then token = rcall('HINCRBY', counts, 'fence', floor) end
  end
  if mode == 'cancelOther' then
    local newest = tonumber(rcall('HGET', counts, 'newest') or '-1')
    if tonumber(score) > newest then rcall('HSET', counts, 'newest', score) end
  end
  local at = clock or batchNow()
  if behind then
    -- the trim check of a start (includes/history), the record left to the caller
    if token % slack == 0 then trim(id) end
    if buffered then return 1, live, token, at, facts and 'buffered,facts' or 'buffered' end
    return 1, live, token, at, facts and ',facts' or ''
  end
  if buffered then
    rcall('HSET', rec, 'outcome', 'running', 'buffered', '1', 'startedAt', stamp,
      'fencingToken', tostring(token), unpack(argv, r0, r1))
  else
    rcall('HSET', rec, 'outcome', 'running', 'startedAt', stamp, 'fencingToken', tostring(token),
      unpack(argv, r0, r1))
  end
  if drop ~= '' then
    local names = {}
    for name in string.gmatch(drop, '[^,]+') do names[#names + 1] = name end
    rcall('HDEL', rec, unpack(names))
  end
  index(id, field, score, token, known, added)
  return 1, live, token, at, ''
end

-- Each run in turn, each under pcall: an error in one (reported in its place) leaves the others.
-- The totals get the batch's skips once at the end (bumpBatched).
-- Each run's flags are read once per distinct string (readFlags, includes/batch).
local out, n = {}, 0
local i, argc = 6, #argv
while i <= argc do
  local f = readFlags(argv[i + 6])
  local s0, r0, s1, r1, drop, after
  if not f.w then
    -- the lean path: no facts sent (empty stretches)
    s0, s1, r0, r1, drop, after = i + 8, i + 7, i + 8, i + 7, '', i + 8
  else
    s0 = i + 11
    r0 = s0 + countOf(argv[i + 8]) * 2 -- the shared facts' start
    s1 = r0 + countOf(argv[i + 9]) * 2 - 1
    r1 = s1 + countOf(argv[i + 10]) * 2
    drop, after = argv[r1 + 1], r1 + 2
  end
  local ok, a, b, c, d, e = pcall(startRun, i, f, r0, r1, drop, s0, s1)
  if not ok then a, b, c, d, e = -1, '', '', 0, type(a) == 'table' and tostring(a.err) or tostring(a) end
  out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = a, b, c, d, e
  n = n + 5
  i = after
end
addTotals(KEYS[1], sums)
return out
