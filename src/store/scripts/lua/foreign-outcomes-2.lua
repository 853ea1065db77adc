--[[
  Record, once each, the outcomes of a batch of occurrences (all of one partition) that a consumer other
  than bullbeat's worker runtime ran. Per outcome: written only while the record is still `enqueued`
  (for the same job id), or when there is no record yet (the consumer finished before the completion
  wrote `enqueued`), the schedule still exists and the record would be among the newest `limit`
  (includes/history: else the trim would drop it at once and the next observer would count it again).
  Any other record (`running`, `succeeded`, ... by a bullbeat worker, or this outcome already recorded
  by another replica) is left alone, so the counters move exactly once whatever number of replicas
  observe the event.

  Each outcome's own keys are built from the partition's key base, as keys.ts names them (the same
  exception as start-runs-1: every key is in the partition's slot).

  Input:
    KEYS[1] totals     hash: counters summed over every schedule (the partition's)
    KEYS[2] schedules  hash: id -> definition JSON

    ARGV[1] the partition's key base (`{tag}:bb`)
    ARGV[2] history limit
    then per outcome:
      schedule id, occurrence field, score (the fire time), job id, counters to bump (comma-separated),
      the occurrence's kind (for a record written first; '' = write only over a record there), the
      number of the patch's name/value pairs,
      the pairs (includes/record)

  One outcome's keys:
    rec:<id>:<field>  hash: the record, one field per fact
    runs:<id>    hash: occurrence field -> run record JSON of an earlier release (read, trimmed)
    runidx:<id>  zset: occurrence field -> fire time
    counts:<id>  hash: the schedule's counters

  Output, per outcome (2 values each, in the batch's order):
    { 1 written and counted | 0 left alone | 2 no record and no kind given, '' }, or { -1, error } for
    an outcome whose write failed
    (each runs under pcall: the others are unaffected)
]]
--- @include "includes/record"
--- @include "includes/batch"

local base, limit = ARGV[1], tonumber(ARGV[2])
-- the batch's counters, added to `totals` once per name at its end (includes/batch: addTotals)
local sums = {}

local function record(id, field, score, jobId, counters, kind, set)
  local runs, idx, counts = base .. ':runs:' .. id, base .. ':runidx:' .. id, base .. ':counts:' .. id
  local recBase = base .. ':rec:' .. id .. ':'
  local rec = recBase .. field
  -- A record hash that is there is indexed: the outcome is patched in without the index's ZADD. An
  -- earlier release's record is written as new.
  local outcome, ofJob, indexed = recordFacts(runs, rec, field)
  if outcome ~= nil then
    if outcome ~= 'enqueued' then return 0 end
    if ofJob and ofJob ~= jobId then return 0 end
  else
    -- no kind given: the caller writes only over a record (it has not checked whose job this is yet)
    if kind == '' then return 2 end
    if redis.call('HEXISTS', KEYS[2], id) == 0 then return 0 end
    if not historyKeeps(idx, tonumber(score), limit) then return 0 end
    set[#set + 1] = 'kind'
    set[#set + 1] = kind
  end
  if indexed then
    patchRecord(rec, set, '')
  else
    writeRecord(runs, idx, recBase, field, score, set, '', limit)
  end
  bumpBatched(counts, sums, counters)
  return 1
end

local out = {}
local i = 3
while i <= #ARGV do
  local set, after = pairsAt(i + 7)
  local ok, r = pcall(record, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], set)
  i = after
  if ok then
    out[#out + 1] = r
    out[#out + 1] = ''
  else
    out[#out + 1] = -1
    out[#out + 1] = type(r) == 'table' and tostring(r.err) or tostring(r)
  end
end
addTotals(KEYS[1], sums)
return out
