--[[
  The name index of a partition (keys.ts `names`): `<base>:names`, a sorted set whose every score is 0
  and whose members are `<name>\0<id>`, so that `ZRANGE ... BYLEX` walks the schedules by name, then id.
  Written by the scripts that write and remove definitions (upsert-9, remove-13), in the same step as the
  definition; `index-names-2` repairs what a writer that kept no index (an earlier release) left.

  The key is built from the partition's `schedules` key (its base, hash tag included: the script's slot).
]]

local function namesKey(schedulesKey)
  return string.sub(schedulesKey, 1, #schedulesKey - #'schedules') .. 'names'
end

-- The name a definition JSON lists under: its `name`, or its id (a definition that does not decode too).
local function storedName(id, defJSON)
  local ok, def = pcall(cjson.decode, defJSON)
  if ok and type(def) == 'table' and type(def.name) == 'string' then return def.name end
  return id
end

-- Move `id` in the name index from definition `old` to definition `new` (either nil: none).
local function reindexName(key, id, old, new)
  local from = old and storedName(id, old)
  local to = new and storedName(id, new)
  if from == to then return end
  if from then redis.call('ZREM', key, from .. '\0' .. id) end
  if to then redis.call('ZADD', key, 0, to .. '\0' .. id) end
end
