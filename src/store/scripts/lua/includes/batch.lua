--[[
  The counters of a script that writes a batch of runs (start-runs, finish-runs, complete-n): each run's
  counters bumped per schedule, and summed for one HINCRBY per name on the totals when the batch ends;
  and the small counts, lists and flag strings its arguments repeat, read once per distinct string. A script's
  functions are made anew at each call: these are apart from includes/record so that a batched
  script builds only what it uses.
]]

-- A parse of a string the batch's arguments repeat (a count, a list, a run's flags), made once per
-- distinct string: a batch of hundreds of runs carries a few of each.
local function memoized(parse)
  local seen = {}
  return function(s)
    local v = seen[s]
    if v == nil then
      v = parse(s)
      seen[s] = v
    end
    return v
  end
end

-- A small count from the arguments (a cap, a number of pairs) as a number (tonumber parses with strtod).
local countOf = memoized(tonumber)

-- The names of a comma-separated list.
local namesOf = memoized(function(list)
  local t = {}
  for name in string.gmatch(list, '[^,]+') do t[#t + 1] = name end
  return t
end)

-- A run's counters, in a script that writes a batch of runs: each bumped per schedule now, and
-- summed in `sums` (name -> n) for one HINCRBY per name on the totals when the batch ends
-- (addTotals): the same totals, in the same atomic call.
local function bumpBatched(counts, sums, names)
  local list = namesOf(names)
  for k = 1, #list do
    local name = list[k]
    redis.call('HINCRBY', counts, name, '1')
    sums[name] = (sums[name] or 0) + 1
  end
end

local function addTotals(totals, sums)
  for name, n in pairs(sums) do redis.call('HINCRBY', totals, name, tostring(n)) end
end

-- A run's flags (one letter each) as a set of its letters, with `lane` the occurrence field's prefix
-- (`m` a manual run's, `b` a backfill's, nil the fire time itself).
local readFlags = memoized(function(flags)
  local f = {}
  for letter in string.gmatch(flags, '.') do f[letter] = true end
  f.lane = (f.m and 'm') or (f.b and 'b') or nil
  return f
end)
