--[[
  Merge a patch into one occurrence's run record (includes/record: facts set and removed, `enqueued`
  never replaces an outcome), index it, trim the history (includes/history), bump counters.
  Written by workers (an exclusion group's start) and by a manual run (enqueued).

  Input:
    KEYS[1] runs:<id>    hash: occurrence field -> run record JSON of an earlier release (trimmed)
    KEYS[2] runidx:<id>  zset: occurrence field -> fire time
    KEYS[3] counts:<id>  hash: the schedule's counters
    KEYS[4] totals       hash: counters summed over every schedule

    ARGV[1] occurrence field (the fire time, or `m<time>` for a manual run)
    ARGV[2] score: the fire time
    ARGV[3] schedule id (its record keys, `rec:<id>:<field>`, are built from KEYS[1])
    ARGV[4] history limit
    ARGV[5] counters to bump (comma-separated, may be empty)
    ARGV[6] the names the patch removes (comma-separated, '' none)
    ARGV[7] the number of the patch's name/value pairs, then the pairs

  Output:
    1
]]
--- @include "includes/record"

local set = pairsAt(8)
writeRecord(KEYS[1], KEYS[2], recordBase(KEYS[1], ARGV[3]), ARGV[1], ARGV[2], set, ARGV[6], tonumber(ARGV[4]))
bumpCounters(KEYS[3], KEYS[4], ARGV[5])
return 1
