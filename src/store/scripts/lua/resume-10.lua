--[[
  Resume a paused (or orphaned) schedule and take its catch-up runs, in one step: the status change,
  the span it was paused over (for backfills) and the occurrences its catch-up runs (into the ledger,
  and owed until they are enqueued: includes/ledger). A crash after this script loses nothing: a
  replica enqueues what is owed once its time has passed. A claim made before the pause whose
  occurrence came due while paused (at or after the pause note's `at`) is dropped, so that the claim
  of a replica that died holding it is not taken over after the resume (a live claimant dropped that
  occurrence at the pause's notice already).

  The span recorded is `[from, next)`, `from` as includes/ledger's pauseSpanFrom. The catch-up runs are
  taken from the candidates (the missed occurrences by the trigger, oldest first): those after the
  last enqueued and claimed occurrence, before `next`, and not in the ledger (a backfill ran them).
  `all` takes each; `once` the latest, standing for every candidate left (`coalesced`).

  Input:
    KEYS[1] state           hash: id -> state row
    KEYS[2] due             zset: id -> next due time
    KEYS[3] inflight        zset: id -> claim lease expiry
    KEYS[4] resched         hash: id -> next due time decided while claimed
    KEYS[5] claim           hash: id -> `fireAt|token`
    KEYS[6] backfills:<id>  zset: the ledger
    KEYS[7] paused:<id>     zset: spans paused over, `from:to` by `to`
    KEYS[8] owed-runs       zset: owed member -> the time by which its taker enqueues it
    KEYS[9] notes           hash: id -> pause note JSON
    KEYS[10] audit:<id>     stream: the schedule's audit trail (includes/audit)

    ARGV[1] id
    ARGV[2] next due time
    ARGV[3] policy: skip | once | all
    ARGV[4] ledger expiry (ms)
    ARGV[5] ms after now by which the catch-up runs are enqueued (else a replica does)
    ARGV[6] the owed member's overlap (e.g. `bufferAll`)
    ARGV[7..10] the audit entry's limit, actor, source, onBehalfOf: `resume`, with `policy` and `runs` (the
            catch-up runs taken)
    ARGV[11..] candidate fire times, ascending

  Output:
    { 0 } no such schedule, { -1 } not paused, { -2 } nothing written: it is claimed at or after
    `next` (re-read, and resume after the claimed occurrence); else { 1, then per catch-up run taken:
    fire time, coalesced ('' for `all`) }
]]
--- @include "includes/now"
--- @include "includes/ledger"
--- @include "includes/audit"

local id = ARGV[1]
local row = redis.call('HGET', KEYS[1], id)
if not row then return { 0 } end
local st = string.sub(row, 1, 1)
if st ~= 'p' and st ~= 'o' then return { -1 } end
local nextAt = tonumber(ARGV[2])
local claimed = claimedFireAt(KEYS[5], id)
-- A claim made before the pause whose occurrence came due while paused is dropped: a live claimant
-- dropped that occurrence at the pause's notice; a dead one's claim must not be taken over (and run,
-- inside the pause) once this resume makes the schedule active again.
local paused = pausedAt(KEYS[9], id)
if claimed and paused and claimed >= paused and claimed < nextAt then
  redis.call('HDEL', KEYS[5], id)
  redis.call('ZREM', KEYS[3], id)
  claimed = nil
end
if redis.call('ZSCORE', KEYS[3], id) then
  if claimed and nextAt <= claimed then return { -2 } end
  redis.call('HSET', KEYS[4], id, ARGV[2])
else
  redis.call('ZADD', KEYS[2], ARGV[2], id)
end

local from = pauseSpanFrom(row, KEYS[5], KEYS[9], KEYS[7], id)
if from < nextAt then redis.call('ZADD', KEYS[7], nextAt, from .. ':' .. nextAt) end

local s = parseState(row)
local after = math.max(tonumber(s.last) or -1, claimed or -1)
local left = {}
for i = 11, #ARGV do
  local t = tonumber(ARGV[i])
  if t > after and t < nextAt and not inLedger(KEYS[6], ARGV[i]) then left[#left + 1] = ARGV[i] end
end
local out = { 1 }
if #left > 0 and ARGV[3] ~= 'skip' then
  local deadline = redisNow() + tonumber(ARGV[5])
  local function take(f, coalesced)
    takeOccurrence(KEYS[6], KEYS[8], f, deadline, f .. '|c|' .. ARGV[6] .. '|' .. coalesced .. '|' .. id)
    out[#out + 1] = f
    out[#out + 1] = coalesced
  end
  if ARGV[3] == 'once' then
    take(left[#left], tostring(#left))
  else
    for _, f in ipairs(left) do take(f, '') end
  end
end
keepLedger(KEYS[6], KEYS[7], ARGV[4])
setStatus(KEYS[1], id, row, 'a')
audit(KEYS[10], id, 7, 'resume', { 'policy', ARGV[3], 'runs', tostring((#out - 1) / 2) })
return out
