--[[
  Record a manual run (`triggerNow`) and its audit entry in one step: merge-run-4's write of the
  `enqueued` record (includes/record) and the entry `trigger` on the schedule's trail. Written after
  the job is added to its BullMQ queue (a crash between the two leaves an enqueued job with neither).

  Input:
    KEYS[1] runs:<id>    hash: occurrence field -> run record JSON of an earlier release (trimmed)
    KEYS[2] runidx:<id>  zset: occurrence field -> fire time
    KEYS[3] counts:<id>  hash: the schedule's counters
    KEYS[4] totals       hash: counters summed over every schedule
    KEYS[5] audit:<id>   stream: the schedule's audit trail (includes/audit)

    ARGV[1] occurrence field (`m<time>`)
    ARGV[2] score: the fire time
    ARGV[3] schedule id (its record keys, `rec:<id>:<field>`, are built from KEYS[1])
    ARGV[4] history limit
    ARGV[5..8] the audit entry's limit, actor, source, onBehalfOf: `trigger`, with `fireAt` and `jobId`
    ARGV[9] the job id
    ARGV[10] the number of the record patch's name/value pairs, then the pairs (includes/record)

  Output:
    1
]]
--- @include "includes/record"
--- @include "includes/audit"

writeRecord(KEYS[1], KEYS[2], recordBase(KEYS[1], ARGV[3]), ARGV[1], ARGV[2], pairsAt(11), '', tonumber(ARGV[4]))
audit(KEYS[5], ARGV[3], 5, 'trigger', { 'fireAt', ARGV[2], 'jobId', ARGV[9] })
return 1
