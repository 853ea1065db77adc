--[[
  Merge a patch into one occurrence's run record (includes/record: a null removes a field, `enqueued`
  never replaces an outcome), index it, trim the history (includes/history), bump counters.
  Written by workers (running, retrying, succeeded, failed, skipped) and by a manual run (enqueued).

  Input:
    KEYS[1] runs:<id>    hash: occurrence field -> run record JSON
    KEYS[2] runidx:<id>  zset: occurrence field -> fire time
    KEYS[3] counts:<id>  hash: the schedule's counters
    KEYS[4] totals       hash: counters summed over every schedule

    ARGV[1] occurrence field (the fire time, or `m<time>` for a manual run)
    ARGV[2] score: the fire time
    ARGV[3] patch JSON
    ARGV[4] history limit
    ARGV[5] counters to bump (comma-separated, may be empty)

  Output:
    1
]]
--- @include "includes/record"

writeRecord(KEYS[1], KEYS[2], ARGV[1], ARGV[2], cjson.decode(ARGV[3]), tonumber(ARGV[4]))
bumpCounters(KEYS[3], KEYS[4], ARGV[5])
return 1
