--[[
  Record, once, the outcome of an occurrence that a consumer other than bullbeat's worker runtime ran.
  Written only while the record is still `enqueued` (for the same job id), or when there is no record
  yet (the consumer finished before the completion wrote `enqueued`), the schedule still exists and
  the record would be among the newest `limit` (includes/history: else the trim would drop it at once
  and the next observer would count it again). Any other record (`running`, `succeeded`, ... by a
  bullbeat worker, or this outcome already recorded by another replica) is left alone, so the counters
  move exactly once whatever number of replicas observe the event.

  Input:
    KEYS[1] runs:<id>    hash: occurrence field -> run record JSON
    KEYS[2] runidx:<id>  zset: occurrence field -> fire time
    KEYS[3] counts:<id>  hash: the schedule's counters
    KEYS[4] totals       hash: counters summed over every schedule
    KEYS[5] schedules    hash: id -> definition JSON

    ARGV[1] occurrence field
    ARGV[2] score: the fire time
    ARGV[3] schedule id
    ARGV[4] job id
    ARGV[5] patch JSON
    ARGV[6] history limit
    ARGV[7] counters to bump (comma-separated)
    ARGV[8] the occurrence's kind (for a record written first)

  Output:
    1 when written and counted, 0 when left alone
]]
--- @include "includes/record"

local limit = tonumber(ARGV[6])
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local patch = cjson.decode(ARGV[5])
if cur then
  local rec = cjson.decode(cur)
  if rec.outcome ~= 'enqueued' then return 0 end
  if rec.jobId and rec.jobId ~= ARGV[4] then return 0 end
else
  if redis.call('HEXISTS', KEYS[5], ARGV[3]) == 0 then return 0 end
  if not historyKeeps(KEYS[2], tonumber(ARGV[2]), limit) then return 0 end
  patch.kind = patch.kind or ARGV[8]
end
writeRecord(KEYS[1], KEYS[2], ARGV[1], ARGV[2], patch, limit)
bumpCounters(KEYS[3], KEYS[4], ARGV[7])
return 1
