--[[
  Repair a partition's name index (includes/names) and group index (includes/groups) where a writer that
  kept neither (an earlier release: its upsert and remove write the definition alone) left them behind.
  The caller (`name-index.ts`) finds such a partition by its counts (members of `names` != definitions)
  and sends every id of it, then every member of its name index, in steps; each step is atomic and
  reads the definitions as stored now, so a step racing a current writer indexes what that writer wrote.

  Input:
    KEYS[1] schedules   hash: id -> definition JSON (its base names the group index's keys)
    KEYS[2] names       zset: `<name>\0<id>`, score 0

    ARGV[1..] each an entry: `i<id>`: index the id's definition (its name; its group, when it names one,
              and no other group: a step costs its ids times the partition's groups), or
              `m<member>`: a member of the name index, removed when its id has no definition or
              another name (then indexed under that name); an id without a definition also leaves
              the group index

  Output:
    how many entries changed an index
]]
--- @include "includes/groups"
--- @include "includes/names"

local base = groupBase(KEYS[1])
local changed = 0

local groupKeys = redis.call('SMEMBERS', base .. 'groupkeys')

-- `id` leaves every group of the partition but `keep` (nil: all; its definition is gone, or names none)
local function dropFromGroups(id, keep)
  for _, g in ipairs(groupKeys) do
    local members = base .. 'groupmem:' .. g
    if g ~= keep and redis.call('ZREM', members, id) == 1 then
      changed = changed + 1
      if redis.call('EXISTS', members) == 0 then redis.call('SREM', base .. 'groupkeys', g) end
    end
  end
end

local function indexId(id, def)
  if redis.call('ZADD', KEYS[2], 0, storedName(id, def) .. '\0' .. id) == 1 then changed = changed + 1 end
  local g = storedGroup(def)
  if g and tonumber(redis.call('ZSCORE', base .. 'groupmem:' .. g.key, id)) ~= g.max then
    reindexGroup(base, id, nil, g)
    changed = changed + 1
  end
  -- a group it named before (changed by a writer that kept no index) lets it go
  dropFromGroups(id, g and g.key)
end

for i = 1, #ARGV do
  local kind, rest = string.sub(ARGV[i], 1, 1), string.sub(ARGV[i], 2)
  if kind == 'i' then
    local def = redis.call('HGET', KEYS[1], rest)
    if def then indexId(rest, def) end
  elseif kind == 'm' then
    local cut = #rest
    while cut > 0 and string.byte(rest, cut) ~= 0 do cut = cut - 1 end
    local name, id = string.sub(rest, 1, cut - 1), string.sub(rest, cut + 1)
    local def = cut > 0 and redis.call('HGET', KEYS[1], id)
    if not def or storedName(id, def) ~= name then
      redis.call('ZREM', KEYS[2], rest)
      changed = changed + 1
      if def then indexId(id, def) elseif cut > 0 then dropFromGroups(id) end
    end
  end
end
return changed
