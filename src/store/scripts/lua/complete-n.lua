--[[
  Complete claims: for each one still ours (compare-and-set on its `fireAt|token`), write its records,
  count the run, and put the schedule back in `due` at its next time (or complete it). A claim that
  lapsed and was taken over is left to the new owner, who enqueues the same job id. A re-schedule made
  while claimed (`resched`) replaces the next time, unless it is at or before the claimed occurrence
  (a schedule never goes back in time). A schedule paused meanwhile stays out of `due`.

  Variable key count (the `-n` in the file name): the caller passes numkeys = 7 + 3 * items.
  Input:
    KEYS[1] due         zset: id -> next due time
    KEYS[2] inflight    zset: id -> claim lease expiry
    KEYS[3] claim       hash: id -> `fireAt|token`
    KEYS[4] state       hash: id -> state row
    KEYS[5] resched     hash: id -> next due time decided while claimed ('-1' = none)
    KEYS[6] completed   zset: id -> completion time
    KEYS[7] totals      hash: counters summed over every schedule
    then per item j (0-based), the schedule's own keys (same hash tag, same slot):
    KEYS[8 + 3j]  runs:<id>    hash: occurrence field -> run record JSON of an earlier release (trimmed;
                               the records are `rec:<id>:<field>` hashes built from it, includes/record)
    KEYS[9 + 3j]  runidx:<id>  zset: occurrence field -> fire time
    KEYS[10 + 3j] counts:<id>  hash: the schedule's counters

    ARGV[1] history limit (includes/history)
    ARGV[2] now (ms): completion time of a schedule that completes
    ARGV[3] token of the claim call
    ARGV[4] shared, the pairs every `enqueued` record of the call carries alike (the replica, the claim's
            time, the outcome, ...): their number, then the pairs (sent once, added to each item's own)
    then per item, in order:
      id, fireAt, next ('-1' = none: complete), missed occurrences beyond the records, occurrences
      coalesced by backpressure (counted as `coalesced`; their records are among the others), ran
      (the fire time of the occurrence enqueued: the claimed one's, or the latest one due when the
      claim came a period late; the schedule's last run, and where its `enqueued` record goes),
      the `enqueued` record: the number of its name/value pairs (0 = not enqueued), the pairs;
      the number of other records, then per record: field, score, counter ('' none), the number of its
      pairs, the pairs
    The `enqueued` record is written by the merge rule (includes/record: one `HSET` when it is new; over
    a record there, `HSETNX outcome`, so it never replaces a worker's outcome, when a worker started the
    job first, or after a take-over).

  Output:
    { how many claims were completed (still ours, schedule still there), then the id of each claim that
      was no longer ours (it lapsed and was taken over: its new owner announces the occurrence) }
]]
--- @include "includes/state"
--- @include "includes/record"
--- @include "includes/batch"

local limit = tonumber(ARGV[1])
local now = ARGV[2]
local token = ARGV[3]
local shared, first = pairsAt(5)
-- where each item's values start (the layout above is of variable length), found from the counts
-- alone (small numbers a batch repeats: countOf, includes/batch)
local at, ids = {}, {}
do
  local a, argc = first, #ARGV
  while a <= argc do
    at[#at + 1] = a
    ids[#ids + 1] = ARGV[a]
    local b = a + 7 + countOf(ARGV[a + 6]) * 2
    local others = countOf(ARGV[b])
    b = b + 1
    for _ = 1, others do
      b = b + 4 + countOf(ARGV[b + 3]) * 2
    end
    at[#at + 1] = b -- the end, read again below
    a = b
  end
end
local n = #ids
-- one read for the batch: their claims, states and (rarely any) pending re-schedules
local claims = redis.call('HMGET', KEYS[3], unpack(ids))
local states = redis.call('HMGET', KEYS[4], unpack(ids))
local anyResched = redis.call('HLEN', KEYS[5]) > 0
local mine, due, stateArgs, lost = {}, {}, {}, {}
-- the batch's counters, added to `totals` once per name at its end (includes/batch: addTotals)
local sums = {}
for j = 0, n - 1 do
  local a = at[2 * j + 1]
  local id = ARGV[a]
  local f = ARGV[a + 1]
  local row = states[j + 1]
  if claims[j + 1] == f .. '|' .. token then
    mine[#mine + 1] = id
    if row then
      local runs, idx, counts = KEYS[8 + 3 * j], KEYS[9 + 3 * j], KEYS[10 + 3 * j]
      local recBase = recordBase(runs, id)
      local s = parseState(row)
      local enq, b = pairsAt(a + 7)
      local others = countOf(ARGV[b])
      b = b + 1
      for _ = 1, others do
        local set, c = pairsAt(b + 4)
        writeRecord(runs, idx, recBase, ARGV[b], ARGV[b + 1], set, '', limit)
        bumpBatched(counts, sums, ARGV[b + 2])
        b = c
      end
      local ran = ARGV[a + 5]
      if #enq > 0 then
        for i = 1, #shared do enq[#enq + 1] = shared[i] end
        s.fired = (tonumber(s.fired) or 0) + 1
        s.last = ran
        writeRecord(runs, idx, recBase, ran, ran, enq, '', limit)
      end
      local mc = countOf(ARGV[a + 3])
      if mc > 0 then
        redis.call('HINCRBY', counts, 'missed', mc)
        sums.missed = (sums.missed or 0) + mc
      end
      local cc = countOf(ARGV[a + 4])
      if cc > 0 then
        redis.call('HINCRBY', counts, 'coalesced', cc)
        sums.coalesced = (sums.coalesced or 0) + cc
      end
      local rs = anyResched and redis.call('HGET', KEYS[5], id)
      if rs then redis.call('HDEL', KEYS[5], id) end
      if s.status == 'a' then
        local nxt = ARGV[a + 2]
        if rs and (rs == '-1' or tonumber(rs) > tonumber(ran)) then nxt = rs end
        if nxt == '-1' then
          s.status = 'c'
          reindexStatus(listBase(KEYS[4], 'state'), id, 'a', 'c')
          redis.call('ZADD', KEYS[6], now, id)
        else
          due[#due + 1] = nxt
          due[#due + 1] = id
        end
      end
      stateArgs[#stateArgs + 1] = id
      stateArgs[#stateArgs + 1] = formatState(s)
    end
  else
    lost[#lost + 1] = id
  end
end
if #mine > 0 then
  redis.call('HDEL', KEYS[3], unpack(mine))
  redis.call('ZREM', KEYS[2], unpack(mine))
end
if #due > 0 then redis.call('ZADD', KEYS[1], unpack(due)) end
if #stateArgs > 0 then redis.call('HSET', KEYS[4], unpack(stateArgs)) end
addTotals(KEYS[7], sums)
table.insert(lost, 1, #stateArgs / 2)
return lost
