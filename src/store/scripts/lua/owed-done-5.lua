--[[
  Record occurrences a backfill or a resume's catch-up has just enqueued, and strike them from the
  owed set: each gets its `enqueued` record (the one merge rule: it never replaces an outcome a worker
  already wrote; the one trim rule; none for one older than the kept history, which the trim would cut
  at once: the ledger alone guards it). Idempotent (a repeat writes the same records).

  Input:
    KEYS[1] runs:<id>       hash: occurrence field -> run record JSON of an earlier release (trimmed)
    KEYS[2] runidx:<id>     zset: occurrence field -> fire time
    KEYS[3] owed-runs       zset: owed member -> the time by which its taker enqueues it
    KEYS[4] schedules       hash: schedule id -> definition
    KEYS[5] backfill-overrides:<id>  hash: what overridden backfills' owed runs carry (includes/overrides):
                            a backfilled occurrence struck no longer names its override

    ARGV[1] schedule id
    ARGV[2] history limit
    ARGV[3..] per record: owed member, record field (`<time>` or `b<time>`), fire time, the number of
      the patch's name/value pairs, the pairs (includes/record)

  Output:
    how many records were written; -1 when the schedule no longer exists (no record written, the
    members struck all the same)
]]
--- @include "includes/record"
--- @include "includes/overrides"

local gone = redis.call('HEXISTS', KEYS[4], ARGV[1]) == 0
local limit = tonumber(ARGV[2])
local recBase = recordBase(KEYS[1], ARGV[1])
local n = 0
local i = 3
while i <= #ARGV do
  redis.call('ZREM', KEYS[3], ARGV[i])
  if string.sub(ARGV[i + 1], 1, 1) == 'b' then dropOverride(KEYS[5], ARGV[i + 2]) end
  local t = tonumber(ARGV[i + 2])
  local set, after = pairsAt(i + 4)
  if not gone and historyKeeps(KEYS[2], t, limit) then
    writeRecord(KEYS[1], KEYS[2], recBase, ARGV[i + 1], ARGV[i + 2], set, '', limit)
    n = n + 1
  end
  i = after
end
if gone then return -1 end
return n
