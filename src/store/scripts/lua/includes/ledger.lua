--[[
  A schedule's ledger (`backfills:<id>`: fire time -> fire time): the occurrences a backfill or a
  resume's catch-up took to run, outside the fire loop. Both take an occurrence here in the same script
  that decides to run it, so no two of them ever run one. A taken occurrence is also owed
  (`owed-runs`, `<fireAt>|<lane>|<overlap>|<coalesced>|<id>` scored by the time by which its taker
  should have enqueued it) until its taker, or a replica after that time, has enqueued it.
  The ledger and the paused spans expire together, `ttl` ms after the last write to either: an
  occurrence of a span is never runnable after its ledger entry is gone.
]]
--- @include "state"
--- @include "claim"

local function inLedger(ledger, t)
  return redis.call('ZSCORE', ledger, t) ~= false
end

local function takeOccurrence(ledger, owed, t, deadline, member)
  redis.call('ZADD', ledger, t, t)
  redis.call('ZADD', owed, deadline, member)
end

local function keepLedger(ledger, spans, ttl)
  redis.call('PEXPIRE', ledger, ttl)
  redis.call('PEXPIRE', spans, ttl)
end

-- Whether `t` lies in a span the fire loop passed over while paused (spans are disjoint, by `to`).
local function inPausedSpan(spans, t)
  local first = redis.call('ZRANGEBYSCORE', spans, '(' .. t, '+inf', 'LIMIT', 0, 1)[1]
  if not first then return false end
  return t >= tonumber(string.match(first, '^([^:]*)'))
end

-- Where the span of a paused schedule's current pause begins: after everything its fire loop judged
-- (its last enqueued and its claimed occurrence, the spans recorded before), not before its creation
-- nor before the pause (its note's `at`, when there is one).
-- When the schedule was paused (its pause note's `at`, Redis ms), or nil without a readable note.
local function pausedAt(notesKey, id)
  local note = redis.call('HGET', notesKey, id)
  if not note then return nil end
  local ok, n = pcall(cjson.decode, note)
  if ok and type(n) == 'table' and type(n.at) == 'number' then return n.at end
  return nil
end

local function pauseSpanFrom(row, claimKey, notesKey, spans, id)
  local s = parseState(row)
  local lo = tonumber(s.created) or 0
  local last = tonumber(s.last)
  if last then lo = math.max(lo, last + 1) end
  local claimed = claimedFireAt(claimKey, id)
  if claimed then lo = math.max(lo, claimed + 1) end
  local prev = redis.call('ZRANGE', spans, -1, -1, 'WITHSCORES')
  if prev[2] then lo = math.max(lo, tonumber(prev[2])) end
  local at = pausedAt(notesKey, id)
  if at then lo = math.max(lo, at) end
  return lo
end
