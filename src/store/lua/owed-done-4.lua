--[[
  Record occurrences a backfill or a resume's catch-up has just enqueued, and strike them from the
  owed set: each gets its `enqueued` record (the one merge rule: it never replaces an outcome a worker
  already wrote; the one trim rule; none for one older than the kept history, which the trim would cut
  at once: the ledger alone guards it). Idempotent (a repeat writes the same records).

  Input:
    KEYS[1] runs:<id>       hash: occurrence field -> run record JSON
    KEYS[2] runidx:<id>     zset: occurrence field -> fire time
    KEYS[3] owed-runs       zset: owed member -> the time by which its taker enqueues it
    KEYS[4] schedules       hash: schedule id -> definition

    ARGV[1] schedule id
    ARGV[2] history limit
    ARGV[3..] quadruples: owed member, record field (`<time>` or `b<time>`), fire time, record patch JSON

  Output:
    how many records were written; -1 when the schedule no longer exists (no record written, the
    members struck all the same)
]]
--- @include "includes/record"

local gone = redis.call('HEXISTS', KEYS[4], ARGV[1]) == 0
local limit = tonumber(ARGV[2])
local n = 0
for i = 3, #ARGV, 4 do
  redis.call('ZREM', KEYS[3], ARGV[i])
  local t = tonumber(ARGV[i + 2])
  if not gone and historyKeeps(KEYS[2], t, limit) then
    writeRecord(KEYS[1], KEYS[2], ARGV[i + 1], t, cjson.decode(ARGV[i + 3]), limit)
    n = n + 1
  end
end
if gone then return -1 end
return n
