--[[
  Finish a batch of runs (one or more, all of one partition), in one call (the worker runtime's lean
  path). For each run: write its outcome unless a newer run of the same occurrence took its record
  over (fencing), give its lease back, keep the schedule's consecutive-failure count (only for a
  schedule with `pauseOnFailure`), and pause the schedule after `pauseOnFailure` failures in a row (includes/pause, a note in `notes`, `stop:<id>`
  published on the wake channel, and the `pause` entry on its audit trail: includes/audit, actor
  `bullbeat`, source `runtime`).

  The runs' own keys are built here from the partition's key base, as keys.ts names them (see
  start-runs-1.lua), each when the run's path needs it.

  Fencing: the record carries the `fencingToken` of the run that last wrote it; an outcome with a
  lower token is not written (a stalled run whose occurrence was re-run by a newer attempt), and counts
  nothing. Tokens only grow (start-runs-1), so a run whose `running` record was written behind (not yet
  there) still loses to a newer run that wrote first, and overwrites an older one's. A record without
  a token (`enqueued`, or written by an earlier release) is written as before. A run alone in its
  slot (`e`) whose lease is still there when it gives it back is not read for its token: nothing
  newer can have started (the worker runtime's default, one run at a time, pays no fencing read).
  The same call writes a `running` record written behind (the worker runtime's flush of a run that
  outlived `recordLagMs`): its lease id '', no counters, no streak.
  The outcome is facts of the record hash (includes/record), from arguments that are already strings.

  Input:
    KEYS[1] totals   hash: counters summed over every schedule (the partition's)
    KEYS[2] state    hash: id -> state row
    KEYS[3] due      zset: id -> next due time
    KEYS[4] resched  hash: id -> next due time decided while claimed
    KEYS[5] notes    hash: id -> pause note JSON `{ note, by, at }`
    ARGV[1] the partition's key base (`{tag}:bb`)
    ARGV[2] history limit
    ARGV[3] wake channel (pub/sub)
    ARGV[4] audit entries kept per schedule (includes/audit)
    then per run, from ARGV[i]:
      i      schedule id
      i + 1  lease id ('' = the run held no slot)
      i + 2  fire time (score; the occurrence field, but with `m` or `b`)
      i + 3  flags, one letter each: `t` the record's `finishedAt` is this call's Redis TIME; `k` the
             record's `fencingToken` is the run's (i + 5), written with the patch; `e` the run held
             its slot alone (one run at a time: its lease given back proves it was not fenced off,
             see finishRun); `o` a success that
             resets the failure streak, `x` a final failure that counts in it (each only for a
             schedule with `pauseOnFailure`: none keeps no streak); `d` the patch removes names (their
             list follows its pairs); `m` / `b` the occurrence field is `m<fire time>` (a manual
             run) / `b<fire time>` (a backfilled one), without either the fire time
      i + 4  counters to bump (comma-separated, may be empty)
      i + 5  the run's fencing token ('' = a run that never started: written unfenced)
      i + 6  the run's slot policy (start-runs's): only `cancelOther` marks leases, only the
             buffering ones and `cancelOther` have waiters
      with `x` only: i + 7 pauseOnFailure (failures in a row that pause the schedule), i + 8 the
             pause note JSON (written when it pauses)
      then the outcome patch: the number of its name/value pairs, the pairs, then (with `d` only)
             the names it removes (comma-separated)

  The run's keys, built from the base and its id: lease:<id> (zset: lease id -> expiry), owed:<id>
  (zset: retries owed a slot), waiters:<id> (zset: job ids buffered for the slot -> fire time),
  cancelled:<id> (set: lease ids asked to stop), runs:<id> (hash: occurrence field -> run record JSON
  of an earlier release, read only), runidx:<id> (zset: occurrence field -> fire time), counts:<id>
  (hash: the schedule's counters, and `failstreak`: final failures in a row), audit:<id> (stream: the
  schedule's audit trail), rec:<id>:<field> (the record, includes/record). The outcomes written here
  are never `enqueued`: the merge rule is HSET/HDEL.

  Output:
    { 1 written | 0 rejected (fenced off), 1 paused now | 0, the job id next in line for the slot ('') }

  Output, per run (3 values each, in the batch's order): as above; { -1, '', error } for a run whose
  step failed (the others are unaffected).
]]
--- @include "includes/now"
--- @include "includes/history"
--- @include "includes/batch"
--- @include "includes/run-slot"

-- Locals, not globals, on the per-run path: a global (`redis`, `ARGV`) is a hash look-up at each use.
local rcall, argv = redis.call, ARGV
local base, limit, channel, auditLimit = argv[1], tonumber(argv[2]), argv[3], argv[4]
local pre = base .. ':' -- every run key is `<base>:<kind>:<id>...`
local sums = {} -- the batch's counters, added to the totals at the end

-- Redis TIME, read once per call: an outcome's `finishedAt` is it (the clock of
-- `enqueuedAt` and `startedAt`, see start-runs-1.lua), so no record ends before it started.
local stamp
local function finishedNow()
  if not stamp then stamp = tostring(redisNow()) end
  return stamp
end

-- The pause's functions (includes/pause, includes/audit and theirs), made by the call that pauses a
-- schedule: a script's functions are made anew at each call, and no other call needs these.
local function pauseFunctions()
--- @include "includes/audit"
--- @include "includes/pause"
  return pauseActive, appendAudit
end

-- A final failure: count it in the schedule's streak, and at `pauseOnFailure` pause the schedule.
local function failed(id, counts, i)
  local streak = rcall('HINCRBY', counts, 'failstreak', '1')
  local max = tonumber(argv[i + 7])
  if max <= 0 or streak < max then return 0 end
  local pauseActive, appendAudit = pauseFunctions()
  if pauseActive(KEYS[2], KEYS[3], KEYS[4], id) then
    local note = argv[i + 8]
    rcall('HSET', KEYS[5], id, note)
    rcall('HDEL', counts, 'failstreak')
    rcall('PUBLISH', channel, 'stop:' .. id)
    -- the note's text, decoded only here (a pause is rare; the run path decodes no note)
    local ok, decoded = pcall(cjson.decode, note)
    appendAudit(base .. ':audit:' .. id, id, auditLimit, 'bullbeat', 'runtime', '', 'pause',
      { 'note', ok and type(decoded) == 'table' and type(decoded.note) == 'string' and decoded.note or '' })
    return 1
  end
  return 0
end

-- One run, its values from ARGV[i] on (the layout above; p0 .. p1 the outcome's pairs, `drop` the
-- names it removes). Returns the 3 values of its output.
local function finishRun(i, flags, p0, p1, drop)
  local id, leaseId, score, token = argv[i], argv[i + 1], argv[i + 2], argv[i + 5]
  local field = flags.lane and flags.lane .. score or score
  local written, paused = 1, 0
  local rec = pre .. 'rec:' .. id .. ':' .. field

  -- The slot first. A run alone in its slot (`e`) that gives back a lease still there held the slot
  -- from its start until now: no newer run of its occurrence can have started meanwhile (one waits
  -- for the slot, or finds the lease lapsed and drops it first), so its record needs no fencing read.
  local sole = false
  if leaseId ~= '' then
    sole = rcall('ZREM', pre .. 'lease:' .. id, leaseId) == 1 and flags.e
  end

  -- A record that exists is indexed (whoever wrote it indexed it; a trim deletes a record and its
  -- index entry together): only a new one is indexed here. Read with the token where a fencing read
  -- is needed; else told by the write (every field of it new: the record was not there).
  local indexed = false
  if token ~= '' and not sole then
    local f = rcall('HMGET', rec, 'fencingToken', 'outcome')
    if f[1] then
      if tonumber(f[1]) > tonumber(token) then written = 0 else indexed = true end
    elseif f[2] then
      indexed = true
    end
  end

  if written == 1 then
    local now = flags.t and finishedNow()
    local own = flags.k
    local fields = (p1 - p0 + 1) / 2 + (now and 1 or 0) + (own and 1 or 0)
    local added = 0
    if own then
      if now then
        added = rcall('HSET', rec, 'finishedAt', now, 'fencingToken', token, unpack(argv, p0, p1))
      else
        added = rcall('HSET', rec, 'fencingToken', token, unpack(argv, p0, p1))
      end
    elseif now then
      added = rcall('HSET', rec, 'finishedAt', now, unpack(argv, p0, p1))
    elseif p1 >= p0 then
      added = rcall('HSET', rec, unpack(argv, p0, p1))
    end
    if drop ~= '' then
      local names = {}
      for name in string.gmatch(drop, '[^,]+') do names[#names + 1] = name end
      rcall('HDEL', rec, unpack(names))
    end
    if sole then indexed = added < fields end
    if not indexed then
      local idx = pre .. 'runidx:' .. id
      if rcall('ZADD', idx, 'NX', score, field) == 1 then
        trimHistory(pre .. 'runs:' .. id, idx, pre .. 'rec:' .. id .. ':', limit)
      end
    end
    local counts = pre .. 'counts:' .. id
    bumpBatched(counts, sums, argv[i + 4])
    -- The streak is kept only for a schedule that asked for it (`pauseOnFailure`): without it a
    -- success writes nothing and a failure counts nothing (upsert-9 drops a streak left by it).
    if flags.o then
      rcall('HDEL', counts, 'failstreak')
    elseif flags.x then
      paused = failed(id, counts, i)
    end
  end

  local nextJob = ''
  if leaseId ~= '' then
    local mode = argv[i + 6]
    if mode == 'cancelOther' then rcall('SREM', pre .. 'cancelled:' .. id, leaseId) end
    local waiters = (mode ~= 'skip' and mode ~= 'none') and pre .. 'waiters:' .. id or nil
    nextJob = nextInLine(pre .. 'owed:' .. id, waiters)
  end
  return written, paused, nextJob
end

-- Each run in turn, each under pcall: an error in one (reported in its place) leaves the others.
-- The totals get the batch's counters once per name at the end (bumpBatched).
-- Each run's flags are read once per distinct string (readFlags, includes/batch).
local out, n = {}, 0
local i, argc = 5, #argv
while i <= argc do
  local flags = readFlags(argv[i + 3])
  local p0 = flags.x and i + 10 or i + 8
  local p1 = p0 + countOf(argv[p0 - 1]) * 2 - 1
  local after = flags.d and p1 + 2 or p1 + 1
  local ok, a, b, c = pcall(finishRun, i, flags, p0, p1, flags.d and argv[p1 + 1] or '')
  if not ok then a, b, c = -1, '', type(a) == 'table' and tostring(a.err) or tostring(a) end
  out[n + 1], out[n + 2], out[n + 3] = a, b, c
  n = n + 3
  i = after
end
addTotals(KEYS[1], sums)
return out
