--[[
  The one merge rule of a run record (JSON in `runs:<id>`, under its occurrence field), used by every
  script that writes one (merge-run, complete, foreign-outcomes):
    - the patch is merged field by field into the record (a new record when there is none);
    - a field given as JSON null is removed;
    - an `enqueued` outcome never replaces an outcome already there: enqueuing is a run's first step,
      so whoever writes it last (the completion after a worker started the job, a manual run's record
      after its worker started, a take-over) does not move the run back; its other fields are merged.
  A script may guard a write before calling it (foreign-outcomes writes only over `enqueued`), never
  merge differently.
]]
--- @include "history"

-- Merge `patch` into the decoded record `rec` (in place) by the rule above.
local function mergeFields(rec, patch)
  for k, v in pairs(patch) do
    if v == cjson.null then
      rec[k] = nil
    elseif not (k == 'outcome' and v == 'enqueued' and rec.outcome) then
      rec[k] = v
    end
  end
  return rec
end

-- The stored record of `field`, decoded ({} when there is none; nil when it is not a JSON object).
local function readRecord(runs, field)
  local cur = redis.call('HGET', runs, field)
  if not cur then return {} end
  local ok, rec = pcall(cjson.decode, cur)
  if ok and type(rec) == 'table' then return rec end
  return nil
end

local function mergeRecord(runs, field, patch)
  local cur = redis.call('HGET', runs, field)
  local rec = cur and cjson.decode(cur) or {}
  redis.call('HSET', runs, field, cjson.encode(mergeFields(rec, patch)))
end

-- Merge, index by fire time, trim: the whole write of one record.
local function writeRecord(runs, idx, field, score, patch, limit)
  mergeRecord(runs, field, patch)
  redis.call('ZADD', idx, score, field)
  trimHistory(runs, idx, limit)
end

-- The same write, for a caller that read the record already (`readRecord`): one decode, not two. A
-- record that was there is in the index already (every write indexes it; the trim removes a record
-- from both), so only a new one is indexed and trimmed for.
local function writeReadRecord(runs, idx, field, score, rec, patch, limit)
  local existed = next(rec) ~= nil
  redis.call('HSET', runs, field, cjson.encode(mergeFields(rec, patch)))
  if existed then return end
  redis.call('ZADD', idx, score, field)
  trimHistory(runs, idx, limit)
end

-- Bump each counter named in `names` (comma-separated, may be empty) per schedule and in total.
local function bumpCounters(counts, totals, names)
  for name in string.gmatch(names, '[^,]+') do
    redis.call('HINCRBY', counts, name, '1') -- '1', not 1: a number argument costs an snprintf
    redis.call('HINCRBY', totals, name, '1')
  end
end
