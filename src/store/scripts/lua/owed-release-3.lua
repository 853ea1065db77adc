--[[
  Give back occurrences a backfill took and did not enqueue (a pause stopped it): out of the owed set,
  the ledger and the overrides together, so that no replica enqueues them and a later backfill or a
  resume's catch-up may take them again. Idempotent.

  Input:
    KEYS[1] owed-runs       zset: owed member -> the time by which its taker enqueues it
    KEYS[2] backfills:<id>  zset: the ledger
    KEYS[3] backfill-overrides:<id>  hash: what overridden backfills' owed runs carry (includes/overrides)

    ARGV[1..] per occurrence: owed member, fire time

  Output:
    how many owed members were struck
]]
--- @include "includes/overrides"

local n = 0
for i = 1, #ARGV, 2 do
  n = n + redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i + 1])
  dropOverride(KEYS[3], ARGV[i + 1])
end
return n
