--[[
  The counters of a script that writes a batch of runs (start-runs, finish-runs, complete-n): each run's
  counters bumped per schedule, and summed for one HINCRBY per name on the totals when the batch ends;
  and the small counts, lists and flag strings its arguments repeat, read once per distinct string. A script's
  functions are made anew at each call: these are apart from includes/record so that a batched
  script builds only what it uses.
]]

-- A small count from the arguments (a cap, a number of pairs) as a number, converted once per
-- distinct string: a batch repeats a few, and tonumber parses with strtod.
local countsRead = {}
local function countOf(s)
  local n = countsRead[s]
  if not n then
    n = tonumber(s)
    countsRead[s] = n
  end
  return n
end

-- The names of a comma-separated list, split once per distinct list (a batch repeats a few).
local namesSplit = {}
local function namesOf(list)
  local t = namesSplit[list]
  if not t then
    t = {}
    for name in string.gmatch(list, '[^,]+') do t[#t + 1] = name end
    namesSplit[list] = t
  end
  return t
end

-- The same for a script that writes a batch of runs: each counter is bumped per schedule now, and
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
-- (`m` a manual run's, `b` a backfill's, nil the fire time itself): read once per distinct string, as a
-- batch's runs carry a few.
local flagsRead = {}
local function readFlags(flags)
  local f = flagsRead[flags]
  if not f then
    f = {}
    for letter in string.gmatch(flags, '.') do f[letter] = true end
    f.lane = (f.m and 'm') or (f.b and 'b') or nil
    flagsRead[flags] = f
  end
  return f
end
