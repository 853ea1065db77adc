--[[
  The expectations index of a partition (keys.ts `expectIndex`): `<base>:expecting`, the set of the ids
  whose definition has `expect`. Written by the scripts that write and remove definitions (upsert-9,
  remove-13), in the same step as the definition, so that the expectations watch reads the schedules
  that expect something and never every definition or every state row.

  The names are built from the partition's `schedules` key (its base, hash tag included: every key is in
  the script's slot), as includes/groups does.
]]

local function expectBase(schedulesKey)
  return string.sub(schedulesKey, 1, #schedulesKey - #'schedules')
end

-- True when a definition JSON has `expect` (decoded only when it names one).
local function storedExpects(defJSON)
  if not defJSON or not string.find(defJSON, '"expect"', 1, true) then return false end
  local ok, def = pcall(cjson.decode, defJSON)
  return ok and type(def) == 'table' and type(def.expect) == 'table'
end

-- Put `id` in the index, or take it out, as its definition says.
local function reindexExpects(base, id, expects)
  if expects then
    redis.call('SADD', base .. 'expecting', id)
  else
    redis.call('SREM', base .. 'expecting', id)
  end
end

-- The partition's expectations index holds every definition (keys.ts `expectsIndexed`): set by a
-- partition's first create (upsert-9), or by the one scan of a partition written before the index
-- (index-expects-2).
local function markExpectsIndexed(base)
  redis.call('SET', base .. 'expectidx', '1')
end
