--[[
  The label index of a partition (keys.ts `labelSet`, `labelValues`): `<base>:label:<key>=<value>`, a
  set of the ids labelled so, and `<base>:labelvals:<key>`, the set of the key's values in use (what
  `key` and `!key` selectors union). Written by the scripts that write and remove definitions
  (upsert-9, remove-13), in the same step, so the index never drifts from the definitions.

  The set names are built from the partition's `schedules` key (its base, hash tag included: every set
  is in the script's slot) and the label's key and value, which labels.ts restricts to letters, digits,
  `-`, `_`, `.` (and `/` in a key): no `=`, `:` or newline, so no two labels share a set.
]]

local function labelBase(schedulesKey)
  return string.sub(schedulesKey, 1, #schedulesKey - #'schedules')
end

-- `key=value` lines (labels.ts `labelsArg`) as a table.
local function labelLines(lines)
  local out = {}
  if lines == nil or lines == '' then return out end
  for line in string.gmatch(lines, '[^\n]+') do
    local eq = string.find(line, '=', 1, true)
    if eq then out[string.sub(line, 1, eq - 1)] = string.sub(line, eq + 1) end
  end
  return out
end

-- The labels of a stored definition JSON (decoded only when it has any).
local function storedLabels(defJSON)
  if not defJSON or not string.find(defJSON, '"labels"', 1, true) then return {} end
  local ok, def = pcall(cjson.decode, defJSON)
  if not ok or type(def) ~= 'table' or type(def.labels) ~= 'table' then return {} end
  local out = {}
  for k, v in pairs(def.labels) do
    if type(k) == 'string' and type(v) == 'string' then out[k] = v end
  end
  return out
end

-- Move `id` in the index from the labels `old` to the labels `new`.
local function reindexLabels(base, id, old, new)
  for k, v in pairs(old) do
    if new[k] ~= v then
      local set = base .. 'label:' .. k .. '=' .. v
      redis.call('SREM', set, id)
      if redis.call('EXISTS', set) == 0 then redis.call('SREM', base .. 'labelvals:' .. k, v) end
    end
  end
  for k, v in pairs(new) do
    if old[k] ~= v then
      redis.call('SADD', base .. 'label:' .. k .. '=' .. v, id)
      redis.call('SADD', base .. 'labelvals:' .. k, v)
    end
  end
end
