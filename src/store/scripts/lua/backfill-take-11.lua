--[[
  Judge the occurrences of a backfill and take the ones to run, in one step: each one judged to run
  goes into the schedule's ledger and is owed (includes/ledger), so a resume's catch-up (or another
  backfill) deciding at the same time finds it taken. A dry run judges only.

  An occurrence runs from a backfill only when nothing ran it or will, and "ran" does not depend on
  the kept history:
    - the schedule's own firing still has it ahead (at or after its claimed or due time): 3
    - after Redis `TIME`: 4
    - in the ledger (a backfill or a catch-up took it) or with a `b<time>` record: 2
    - its scheduled record says `missed` or `skipped`: 0 (a backfill is how those run after all);
      any other outcome: 1
    - (with only = 'failed': a `failed` record is 0, any other 0 above is 5)
    - no record: 0 before the schedule was created, or inside a span it was paused over, the current
      pause included (nothing judged those); 1 otherwise: the fire loop passed over it (it ran, or it was coalesced, and its
      record is no longer kept: never run twice)

  Input:
    KEYS[1] runs:<id>       hash: occurrence field -> run record JSON of an earlier release (the
                            records, `rec:<id>:<field>`, are built from it: includes/record)
    KEYS[2] backfills:<id>  zset: the ledger
    KEYS[3] paused:<id>     zset: spans paused over, `from:to` by `to`
    KEYS[4] owed-runs       zset: owed member -> the time by which its taker enqueues it
    KEYS[5] due             zset: schedule id -> next due time
    KEYS[6] claim           hash: schedule id -> `fireAt|token`
    KEYS[7] schedules       hash: schedule id -> definition
    KEYS[8] state           hash: schedule id -> state row
    KEYS[9] notes           hash: schedule id -> pause note JSON (its `at`: when the current pause began)
    KEYS[10] audit:<id>     stream: the schedule's audit trail (includes/audit)
    KEYS[11] backfill-overrides:<id>  hash: what overridden backfills' owed runs carry (includes/overrides)

    ARGV[1] schedule id
    ARGV[2] '1' to take the ones to run, '' to judge only
    ARGV[3] ledger expiry (ms)
    ARGV[4] the owed member's middle: `<lane>|<overlap>|<coalesced>` (e.g. `b|bufferAll|`)
    ARGV[5..8] the audit entry's limit, actor, source, onBehalfOf: `backfill`, with the range `from`, `to` and
            `runs` (taken by this call), written when it takes at least one
    ARGV[9] ARGV[10] the backfill's range [from, to) (ms)
    ARGV[11] only: '' or 'not-run' = every occurrence that may run (above); 'missed' = only those recorded
            `missed` or `skipped`; 'failed' = only those whose scheduled record says `failed` (a failed run
            is re-run once: the ledger takes it). An occurrence left out is 5
    ARGV[12] what the backfill's runs override (`data`, `jobOptions`, comma-separated; '' none): the
            audit entry's `overrides`
    ARGV[13] the backfill's override id ('' none): each occurrence taken names it (includes/overrides)
    ARGV[14] the override (JSON, backfill-override.ts), kept while an occurrence naming it is owed
    ARGV[15..] pairs: fire time (ascending), ms after now by which it is enqueued

  Output:
    { -1 } when the schedule does not exist; else { now, code per fire time } (codes above)
]]
--- @include "includes/now"
--- @include "includes/ledger"
--- @include "includes/audit"
--- @include "includes/record"
--- @include "includes/overrides"

local id = ARGV[1]
local recBase = recordBase(KEYS[1], id)
if redis.call('HEXISTS', KEYS[7], id) == 0 then return { -1 } end
local now = redisNow()
local ahead = claimedFireAt(KEYS[6], id) or tonumber(redis.call('ZSCORE', KEYS[5], id) or '')
local row = redis.call('HGET', KEYS[8], id)
local created = row and tonumber(parseState(row).created) or nil
local st = row and string.sub(row, 1, 1)
-- the current pause: a span not recorded yet (its resume records it)
local pausedFrom = (st == 'p' or st == 'o') and pauseSpanFrom(row, KEYS[6], KEYS[9], KEYS[3], id) or nil
local take = ARGV[2] == '1'
local out = { now }
local taken = 0
local takenTimes = {}
local only = ARGV[11]
for i = 15, #ARGV, 2 do
  local f = ARGV[i]
  local t = tonumber(f)
  local code = 1
  if ahead and t >= ahead then
    code = 3
  elseif t > now then
    code = 4
  elseif inLedger(KEYS[2], f) or redis.call('EXISTS', recBase .. 'b' .. f) == 1
    or redis.call('HEXISTS', KEYS[1], 'b' .. f) == 1 then
    code = 2
  else
    local outcome = recordFacts(KEYS[1], recBase .. f, f)
    if outcome then
      if outcome == 'missed' or outcome == 'skipped' then
        code = (only == 'failed') and 5 or 0
      elseif outcome == 'failed' and only == 'failed' then
        code = 0
      end
    elseif (created and t < created) or (pausedFrom and t >= pausedFrom) or inPausedSpan(KEYS[3], t) then
      code = (only == 'failed' or only == 'missed') and 5 or 0
    end
  end
  if code == 0 and take then
    takeOccurrence(KEYS[2], KEYS[4], f, now + tonumber(ARGV[i + 1]), f .. '|' .. ARGV[4] .. '|' .. id)
    taken = taken + 1
    takenTimes[taken] = f
  end
  out[#out + 1] = code
end
if taken > 0 then
  keepLedger(KEYS[2], KEYS[3], ARGV[3])
  if ARGV[13] ~= '' then nameOverride(KEYS[11], ARGV[13], ARGV[14], takenTimes, ARGV[3]) end
  local fields = { 'from', ARGV[9], 'to', ARGV[10], 'runs', tostring(taken) }
  if ARGV[12] ~= '' then
    fields[#fields + 1] = 'overrides'
    fields[#fields + 1] = ARGV[12]
  end
  audit(KEYS[10], id, 5, 'backfill', fields)
end
return out
