--[[
  The group index of a partition (keys.ts `groupKeys`, `groupMembers`): `<base>:groupkeys`, the set of
  the group keys its schedules name, and `<base>:groupmem:<key>`, the sorted set of the ids naming `key`,
  each scored by its `max`. Written by the scripts that write and remove definitions (upsert-9,
  remove-13), in the same step as the definition, so that the groups' read (`groups()`) reads the groups
  and never every definition.

  The names are built from the partition's `schedules` key (its base, hash tag included: every key is in
  the script's slot) followed by the whole group key, so no two group keys share a set.
]]

local function groupBase(schedulesKey)
  return string.sub(schedulesKey, 1, #schedulesKey - #'schedules')
end

-- The group (`run.group`: { key, max }) of a definition JSON, or nil (decoded only when it names one).
local function storedGroup(defJSON)
  if not defJSON or not string.find(defJSON, '"group"', 1, true) then return nil end
  local ok, def = pcall(cjson.decode, defJSON)
  if not ok or type(def) ~= 'table' or type(def.run) ~= 'table' then return nil end
  local g = def.run.group
  if type(g) ~= 'table' or type(g.key) ~= 'string' or type(g.max) ~= 'number' then return nil end
  return { key = g.key, max = g.max }
end

-- Move `id` in the index from the group `old` to the group `new` (either nil: none).
local function reindexGroup(base, id, old, new)
  if old and (not new or new.key ~= old.key) then
    local members = base .. 'groupmem:' .. old.key
    redis.call('ZREM', members, id)
    if redis.call('EXISTS', members) == 0 then redis.call('SREM', base .. 'groupkeys', old.key) end
  end
  if new then
    redis.call('ZADD', base .. 'groupmem:' .. new.key, new.max, id)
    redis.call('SADD', base .. 'groupkeys', new.key)
  end
end

-- The partition's group index holds every definition (keys.ts `groupsIndexed`): set by a partition's
-- first create (upsert-9), or by the one scan of a partition written before the index (index-groups-2).
local function markGroupsIndexed(base)
  redis.call('SET', base .. 'groupidx', '1')
end
