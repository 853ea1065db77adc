--[[
  Record occurrences a backfill has just enqueued: each goes into the backfill ledger (so no later
  backfill enqueues it again) and gets its `enqueued` record under `b<fire time>` (the one merge rule:
  it never replaces an outcome a worker already wrote; the one trim rule). Idempotent but for the
  ledger's expiry, which is pushed back.

  Input:
    KEYS[1] runs:<id>       hash: occurrence field -> run record JSON
    KEYS[2] runidx:<id>     zset: occurrence field -> fire time
    KEYS[3] backfills:<id>  zset: the backfill ledger
    KEYS[4] schedules       hash: schedule id -> definition

    ARGV[1] schedule id
    ARGV[2] history limit
    ARGV[3] ledger expiry (ms)
    ARGV[4..] pairs: fire time, record patch JSON

  Output:
    how many records were written (-1 when the schedule no longer exists: nothing is written); an
    occurrence older than the newest `limit` records gets none (the trim would cut it at once)
]]
--- @include "includes/record"

if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 0 then return -1 end
local limit = tonumber(ARGV[2])
local n = 0
for i = 4, #ARGV, 2 do
  local t = ARGV[i]
  redis.call('ZADD', KEYS[3], t, t)
  -- a record older than the kept history would be cut at once: the ledger alone guards it
  if historyKeeps(KEYS[2], tonumber(t), limit) then
    writeRecord(KEYS[1], KEYS[2], 'b' .. t, t, cjson.decode(ARGV[i + 1]), limit)
    n = n + 1
  end
end
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return n
