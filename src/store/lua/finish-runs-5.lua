--[[
  Finish a batch of runs (one or more, all of one partition), in one call (the worker runtime's lean
  path). For each run: write its outcome unless a newer run of the same occurrence took its record
  over (fencing), give its lease back, keep the schedule's consecutive-failure count, and pause the
  schedule after `pauseOnFailure` failures in a row (includes/pause, a note in `notes`, `stop:<id>`
  published on the wake channel, and the `pause` entry on its audit trail: includes/audit, actor
  `bullbeat`, source `runtime`).

  The runs' own keys are built here from the partition's key base, as keys.ts names them (see
  start-runs-n.lua). The per-run names below (K[i], A[i] in the code) are one run's keys and values.

  Fencing: the record carries the `fencingToken` of the run that wrote `running` into it; an outcome
  with another token is not written (a stalled run whose occurrence was re-run by a newer attempt), and
  counts nothing. A record without a token (written by an earlier release) is written as before.
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
    then per run: A[8] (schedule id), A[1], A[2], A[3], A[14], A[6], A[7], A[9], A[10], A[11], A[13],
    then the outcome patch: the number of its name/value pairs, the pairs (A[4]), the names it removes
    (A[15])

  One run's keys and values:
    K[1] lease:<id>          zset: lease id -> expiry
    K[2] owed:<id>           zset: retries owed a slot
    K[3] waiters:<id>        zset: job ids buffered for the slot -> fire time
    K[4] cancelled:<id>      set: lease ids asked to stop
    K[5] runs:<id>           hash: occurrence field -> run record JSON of an earlier release (read only)
    K[6] runidx:<id>         zset: occurrence field -> fire time
    K[7] counts:<id>         hash: the schedule's counters (and `failstreak`: final failures in a row)
    K[8..12] KEYS[1..5]
    K[13] rec:<id>:          the start of the schedule's record keys (includes/record)
    K[14] audit:<id>         stream: the schedule's audit trail

    A[1] lease id ('' = the run held no slot)
    A[2] occurrence field
    A[3] fire time (score)
    A[4] the outcome patch's pairs (a table)
    A[5] history limit (ARGV[2])
    A[6] counters to bump (comma-separated, may be empty)
    A[7] the run's fencing token ('' = a run that never started: written unfenced)
    A[8] schedule id
    A[9] streak: 'ok' (a success: reset), 'failed' (a final failure: count), '' (neither)
    A[10] pauseOnFailure: failures in a row that pause the schedule (0 = never)
    A[11] the pause note JSON (written when it pauses)
    A[12] wake channel (ARGV[3])
    A[13] the run's slot policy (start-runs's A[3]): only `cancelOther` marks leases, only the
          buffering ones and `cancelOther` have waiters
    A[14] '1': the record's `finishedAt` is this call's Redis TIME; '' none
    A[15] the names the patch removes (comma-separated, '' none)
    A[16] audit entries kept (ARGV[4])

  Output:
    { 1 written | 0 rejected (fenced off), 1 paused now | 0, the job id next in line for the slot ('') }

  Output, per run (3 values each, in the batch's order): as above; { -1, '', error } for a run whose
  step failed (the others are unaffected).
]]
--- @include "includes/now"
--- @include "includes/record"
--- @include "includes/audit"
--- @include "includes/pause"
--- @include "includes/run-slot"

-- Redis TIME, read once per call: an outcome's `finishedAt` is it (the clock of
-- `enqueuedAt` and `startedAt`, see start-runs-1.lua), so no record ends before it started.
local stamp
local function finishedNow()
  if not stamp then stamp = tostring(redisNow()) end
  return stamp
end

local function finishRun(K, A)
  local leaseId, field, id = A[1], A[2], A[8]
  local written, paused = 1, 0

  local rec = K[13] .. field
  if A[7] ~= '' then
    local token = redis.call('HGET', rec, 'fencingToken')
    if token and token ~= A[7] then written = 0 end
  end

  if written == 1 then
    local set = A[4]
    if A[14] == '1' then
      set[#set + 1] = 'finishedAt'
      set[#set + 1] = finishedNow()
    end
    patchRecord(rec, set, A[15])
    indexRecord(K[5], K[6], K[13], field, A[3], tonumber(A[5]))
    bumpCounters(K[7], K[8], A[6])
    if A[9] == 'ok' then
      redis.call('HDEL', K[7], 'failstreak')
    elseif A[9] == 'failed' then
      local streak = redis.call('HINCRBY', K[7], 'failstreak', '1')
      local max = tonumber(A[10])
      if max > 0 and streak >= max and pauseActive(K[9], K[10], K[11], id) then
        redis.call('HSET', K[12], id, A[11])
        redis.call('HDEL', K[7], 'failstreak')
        redis.call('PUBLISH', A[12], 'stop:' .. id)
        -- the note's text, decoded only here (a pause is rare; the run path decodes no note)
        local ok, note = pcall(cjson.decode, A[11])
        appendAudit(K[14], A[16], 'bullbeat', 'runtime', 'pause',
          { 'note', ok and type(note) == 'table' and type(note.note) == 'string' and note.note or '' })
        paused = 1
      end
    end
  end

  local nextJob = ''
  if leaseId ~= '' then
    redis.call('ZREM', K[1], leaseId)
    local mode = A[13]
    if mode == 'cancelOther' then redis.call('SREM', K[4], leaseId) end
    nextJob = nextInLine(K[2], (mode ~= 'skip' and mode ~= 'none') and K[3] or nil)
  end
  return { written, paused, nextJob }
end

-- Each run in turn, each under pcall: an error in one (reported in its place) leaves the others.
local base, limit, channel, auditLimit = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local out = {}
local i = 5
while i <= #ARGV do
  local id = ARGV[i]
  local K = {
    base .. ':lease:' .. id, base .. ':owed:' .. id, base .. ':waiters:' .. id,
    base .. ':cancelled:' .. id, base .. ':runs:' .. id, base .. ':runidx:' .. id,
    base .. ':counts:' .. id, KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], base .. ':rec:' .. id .. ':',
    base .. ':audit:' .. id,
  }
  local set, after = pairsAt(i + 12)
  local A = {
    ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], set, limit, ARGV[i + 5], ARGV[i + 6], id,
    ARGV[i + 7], ARGV[i + 8], ARGV[i + 9], channel, ARGV[i + 10], ARGV[i + 4], ARGV[after],
    auditLimit,
  }
  i = after + 1
  local ok, r = pcall(finishRun, K, A)
  if not ok then r = { -1, '', type(r) == 'table' and tostring(r.err) or tostring(r) } end
  for j = 1, 3 do out[#out + 1] = r[j] end
end
return out
