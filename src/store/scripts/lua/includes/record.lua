--[[
  A run record is a hash per occurrence, `rec:<id>:<field>` (`<base>:rec:<id>:` is its `recBase`), one
  field per fact, every value a string the caller formatted (record-form.ts): no script decodes or
  encodes it. The one merge rule, used by every script that writes one:
    - a patch is `set` (name, value pairs: HSET, a new record when there is none) and `drop` (names,
      comma-separated: HDEL), so a write changes only the facts it names;
    - an `enqueued` outcome never replaces an outcome already there (HSETNX): enqueuing is a run's
      first step, so whoever writes it last (the completion after a worker started the job, a manual
      run's record after its worker started, a take-over) does not move the run back; its other facts
      are written.
  A script may guard a write before calling it (foreign-outcomes writes only over `enqueued`), never
  merge differently. Records of an earlier release (JSON in the `runs:<id>` hash) are never written
  over: readers lay this form's facts over them; `oldFacts` (includes/old-facts) reads the two facts
  scripts judge by.
]]
--- @include "history"
--- @include "old-facts"

-- `<base>:rec:<id>:` from the schedule's `<base>:runs:<id>` key.
local function recordBase(runs, id)
  return string.sub(runs, 1, #runs - #id - 5) .. 'rec:' .. id .. ':'
end

-- Write a patch into the record hash `rec` by the merge rule. `set` is a table of name, value pairs
-- (read only), `drop` a comma-separated list of names or ''.
local function patchRecord(rec, set, drop)
  local n = #set
  for j = 1, n, 2 do
    if set[j] == 'outcome' then
      if set[j + 1] == 'enqueued' then
        redis.call('HSETNX', rec, 'outcome', 'enqueued')
        if j > 1 then
          -- the other pairs, in order (an `enqueued` outcome comes first from every writer)
          local rest = {}
          for k = 1, n do
            if k ~= j and k ~= j + 1 then rest[#rest + 1] = set[k] end
          end
          set = rest
        elseif n > 2 then
          redis.call('HSET', rec, unpack(set, 3, n))
          set = nil
        else
          set = nil
        end
      end
      break
    end
  end
  if set and #set > 0 then redis.call('HSET', rec, unpack(set)) end
  if drop ~= nil and drop ~= '' then
    local names = {}
    for name in string.gmatch(drop, '[^,]+') do names[#names + 1] = name end
    redis.call('HDEL', rec, unpack(names))
  end
end

-- The whole write of one record: index, merge (or write: a new entry has no record to merge with),
-- trim. A record's hash is there only while its index entry is (every writer indexes the record it
-- writes, in the same script, and the trim drops both), so a new entry's record is written with one
-- `HSET`, its `enqueued` outcome included, and no `HSETNX`.
local function writeRecord(runs, idx, recBase, field, score, set, drop, limit)
  if redis.call('ZADD', idx, 'NX', score, field) == 1 then
    if #set > 0 then redis.call('HSET', recBase .. field, unpack(set)) end
    trimHistory(runs, idx, recBase, limit)
  else
    patchRecord(recBase .. field, set, drop)
  end
end

-- The pairs of ARGV[from .. from + 2n - 1] as a table (n = ARGV[from - 1]); returns it and the index after.
local function pairsAt(from)
  local n = tonumber(ARGV[from - 1]) * 2
  local set = {}
  for j = 1, n do set[j] = ARGV[from + j - 1] end
  return set, from + n
end

-- A record's outcome and job id, this form's or else an earlier release's (nil, nil: no record), and
-- true when read from this form's hash (which its writer indexed: a trim removes both at once).
local function recordFacts(runs, rec, field)
  local f = redis.call('HMGET', rec, 'outcome', 'jobId')
  if f[1] or f[2] then return f[1] or '', f[2] or nil, true end
  local outcome, ofJob = oldFacts(runs, field)
  return outcome, ofJob, false
end

-- Bump each counter named in `names` (comma-separated, may be empty) per schedule and in total.
local function bumpCounters(counts, totals, names)
  for name in string.gmatch(names, '[^,]+') do
    redis.call('HINCRBY', counts, name, '1') -- '1', not 1: a number argument costs an snprintf
    redis.call('HINCRBY', totals, name, '1')
  end
end
