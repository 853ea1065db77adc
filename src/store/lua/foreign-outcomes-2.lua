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
    then 7 values per outcome:
      schedule id, occurrence field, score (the fire time), job id, patch JSON,
      counters to bump (comma-separated), the occurrence's kind (for a record written first)

  One outcome's keys:
    runs:<id>    hash: occurrence field -> run record JSON
    runidx:<id>  zset: occurrence field -> fire time
    counts:<id>  hash: the schedule's counters

  Output, per outcome (2 values each, in the batch's order):
    { 1 written and counted | 0 left alone, '' }, or { -1, error } for an outcome whose write failed
    (each runs under pcall: the others are unaffected)
]]
--- @include "includes/record"

local base, limit = ARGV[1], tonumber(ARGV[2])

local function record(id, field, score, jobId, patchJson, counters, kind)
  local runs, idx, counts = base .. ':runs:' .. id, base .. ':runidx:' .. id, base .. ':counts:' .. id
  local rec = readRecord(runs, field)
  if rec == nil then return 0 end -- not a JSON object: not ours to overwrite
  local patch = cjson.decode(patchJson)
  if next(rec) ~= nil then
    if rec.outcome ~= 'enqueued' then return 0 end
    if rec.jobId and rec.jobId ~= jobId then return 0 end
  else
    if redis.call('HEXISTS', KEYS[2], id) == 0 then return 0 end
    if not historyKeeps(idx, tonumber(score), limit) then return 0 end
    patch.kind = patch.kind or kind
  end
  writeReadRecord(runs, idx, field, score, rec, patch, limit)
  bumpCounters(counts, KEYS[1], counters)
  return 1
end

local out = {}
for i = 3, #ARGV, 7 do
  local ok, r = pcall(record, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[i + 6])
  if ok then
    out[#out + 1] = r
    out[#out + 1] = ''
  else
    out[#out + 1] = -1
    out[#out + 1] = type(r) == 'table' and tostring(r.err) or tostring(r)
  end
end
return out
