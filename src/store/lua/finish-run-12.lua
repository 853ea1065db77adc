--[[
  Finish one run of an occurrence, in one call (the worker runtime's lean path): write its outcome
  unless a newer run of the same occurrence took its record over (fencing), give its lease back, keep
  the schedule's consecutive-failure count, and pause the schedule after `pauseOnFailure` failures in
  a row (includes/pause, a note in `notes`, `stop:<id>` published on the wake channel).

  Fencing: the record carries the `fencingToken` of the run that wrote `running` into it; an outcome
  with another token is not written (a stalled run whose occurrence was re-run by a newer attempt), and
  counts nothing. A record without a token (written by the previous release) is written as before.

  Input:
    KEYS[1] lease:<id>          zset: lease id -> expiry
    KEYS[2] owed:<id>           zset: retries owed a slot
    KEYS[3] waiters:<id>        zset: job ids buffered for the slot -> fire time
    KEYS[4] cancelled:<id>      set: lease ids asked to stop
    KEYS[5] runs:<id>           hash: occurrence field -> run record JSON
    KEYS[6] runidx:<id>         zset: occurrence field -> fire time
    KEYS[7] counts:<id>         hash: the schedule's counters (and `failstreak`: final failures in a row)
    KEYS[8] totals              hash: counters summed over every schedule
    KEYS[9] state               hash: id -> state row
    KEYS[10] due                zset: id -> next due time
    KEYS[11] resched            hash: id -> next due time decided while claimed
    KEYS[12] notes              hash: id -> pause note JSON `{ note, by, at }`

    ARGV[1] lease id ('' = the run held no slot)
    ARGV[2] occurrence field
    ARGV[3] fire time (score)
    ARGV[4] outcome patch JSON
    ARGV[5] history limit
    ARGV[6] counters to bump (comma-separated, may be empty)
    ARGV[7] the run's fencing token ('' = a run that never started: written unfenced)
    ARGV[8] schedule id
    ARGV[9] streak: 'ok' (a success: reset), 'failed' (a final failure: count), '' (neither)
    ARGV[10] pauseOnFailure: failures in a row that pause the schedule (0 = never)
    ARGV[11] the pause note JSON (written when it pauses)
    ARGV[12] wake channel (pub/sub)
    ARGV[13] the run's slot policy (start-run's ARGV[3]): only `cancelOther` marks leases, only the
             buffering ones and `cancelOther` have waiters

  Output:
    { 1 written | 0 rejected (fenced off), 1 paused now | 0, the job id next in line for the slot ('') }
]]
--- @include "includes/record"
--- @include "includes/pause"
--- @include "includes/run-slot"

local leaseId, field, id = ARGV[1], ARGV[2], ARGV[8]
local written, paused = 1, 0

local rec = readRecord(KEYS[5], field)
if rec and ARGV[7] ~= '' and rec.fencingToken and tostring(rec.fencingToken) ~= ARGV[7] then
  written = 0
end

if written == 1 then
  local patch = cjson.decode(ARGV[4])
  if rec then
    writeReadRecord(KEYS[5], KEYS[6], field, ARGV[3], rec, patch, tonumber(ARGV[5]))
  else
    writeRecord(KEYS[5], KEYS[6], field, ARGV[3], patch, tonumber(ARGV[5]))
  end
  bumpCounters(KEYS[7], KEYS[8], ARGV[6])
  if ARGV[9] == 'ok' then
    redis.call('HDEL', KEYS[7], 'failstreak')
  elseif ARGV[9] == 'failed' then
    local streak = redis.call('HINCRBY', KEYS[7], 'failstreak', 1)
    local max = tonumber(ARGV[10])
    if max > 0 and streak >= max and pauseActive(KEYS[9], KEYS[10], KEYS[11], id) then
      redis.call('HSET', KEYS[12], id, ARGV[11])
      redis.call('HDEL', KEYS[7], 'failstreak')
      redis.call('PUBLISH', ARGV[12], 'stop:' .. id)
      paused = 1
    end
  end
end

local nextJob = ''
if leaseId ~= '' then
  redis.call('ZREM', KEYS[1], leaseId)
  local mode = ARGV[13]
  if mode == 'cancelOther' then redis.call('SREM', KEYS[4], leaseId) end
  nextJob = nextInLine(KEYS[2], (mode ~= 'skip' and mode ~= 'none') and KEYS[3] or nil)
end
return { written, paused, nextJob }
