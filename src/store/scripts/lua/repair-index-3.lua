--[[
  Repair a partition's list indexes (includes/names: by name, queue and status) and group index
  (includes/groups) where a writer that kept none (an earlier release: its upsert, remove and status
  changes write the definition and state alone) left them behind. The caller (`name-index.ts`) finds
  such a partition by its counts (members of its queue indexes != definitions) or by its missing
  `listidx` mark (data written before the queue and status indexes), and sends every id of it, then
  every member of its queue and status indexes, in steps; a list page sends what it found stale on its
  rows. Each step is atomic and reads the definitions and states as stored now, so a step racing a
  current writer indexes what it wrote.

  Input:
    KEYS[1] schedules   hash: id -> definition JSON (its base names the group and list indexes' keys)
    KEYS[2] queues      set: the queues with an index (`qnames:<queue>`, zset `<name>\0<id>`, score 0)
    KEYS[3] state       hash: id -> state row (includes/state)

    ARGV[1..] each an entry:
              `i<id>`: index the id's definition and state as stored now: its name, its queue, its
              status (and no other status); its group, when it names one, and no other group (a step
              costs its ids times the partition's groups);
              `m<member>`: a member of a queue or status index, removed (from every queue index and
              every status index of the partition) when its id has no definition or another name,
              then indexed under that name; an id without a definition also leaves the group index;
              `q<queue>\0<member>`: a member of that queue's index: when its id has no definition or
              another name, as `m`; when it is on another queue, removed from this one's index and
              indexed as `i`

  Output:
    how many entries changed an index
]]
--- @include "includes/groups"
--- @include "includes/names"

local base = groupBase(KEYS[1])
local changed = 0

local groupKeys = redis.call('SMEMBERS', base .. 'groupkeys')
local STATUSES = { 'paused', 'completed', 'errored' }

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

-- `member` leaves a queue's index (and the partition's queues with its last member)
local function dropFromQueue(queue, member)
  local q = base .. 'qnames:' .. queue
  if redis.call('ZREM', q, member) == 1 then
    changed = changed + 1
    if redis.call('EXISTS', q) == 0 then redis.call('SREM', KEYS[2], queue) end
  end
end

-- `member` leaves every queue and status index of the partition
local function dropEverywhere(member)
  for _, queue in ipairs(redis.call('SMEMBERS', KEYS[2])) do dropFromQueue(queue, member) end
  for _, st in ipairs(STATUSES) do
    if redis.call('ZREM', base .. 'snames:' .. st, member) == 1 then changed = changed + 1 end
  end
end

local function indexId(id, def)
  local name, queue = storedNameQueue(id, def)
  local member = name .. '\0' .. id
  if redis.call('ZADD', base .. 'qnames:' .. queue, 0, member) == 1 then changed = changed + 1 end
  redis.call('SADD', KEYS[2], queue)
  local row = redis.call('HGET', KEYS[3], id)
  local shown = row and STATUS_INDEX[string.sub(row, 1, 1)]
  for _, st in ipairs(STATUSES) do
    local key = base .. 'snames:' .. st
    if st == shown then
      if redis.call('ZADD', key, 0, member) == 1 then changed = changed + 1 end
    elseif redis.call('ZREM', key, member) == 1 then
      changed = changed + 1
    end
  end
  local g = storedGroup(def)
  if g and tonumber(redis.call('ZSCORE', base .. 'groupmem:' .. g.key, id)) ~= g.max then
    reindexGroup(base, id, nil, g)
    changed = changed + 1
  end
  -- a group it named before (changed by a writer that kept no index) lets it go
  dropFromGroups(id, g and g.key)
end

-- `<name>\0<id>` split at its last NUL (an id holds none); cut 0: no NUL
local function splitMember(member)
  local cut = #member
  while cut > 0 and string.byte(member, cut) ~= 0 do cut = cut - 1 end
  return string.sub(member, 1, cut - 1), string.sub(member, cut + 1), cut
end

for i = 1, #ARGV do
  local kind, rest = string.sub(ARGV[i], 1, 1), string.sub(ARGV[i], 2)
  if kind == 'i' then
    local def = redis.call('HGET', KEYS[1], rest)
    if def then indexId(rest, def) end
  elseif kind == 'm' then
    local name, id, cut = splitMember(rest)
    local def = cut > 0 and redis.call('HGET', KEYS[1], id)
    if not def or storedName(id, def) ~= name then
      dropEverywhere(rest)
      if def then indexId(id, def) elseif cut > 0 then dropFromGroups(id) end
    end
  elseif kind == 'q' then
    local at = string.find(rest, '\0', 1, true)
    if at then
      local queue, member = string.sub(rest, 1, at - 1), string.sub(rest, at + 1)
      local name, id, cut = splitMember(member)
      local def = cut > 0 and redis.call('HGET', KEYS[1], id)
      local nowName, nowQueue
      if def then nowName, nowQueue = storedNameQueue(id, def) end
      if not def or nowName ~= name then
        -- gone or renamed: the member is stale in every index (as `m`)
        dropEverywhere(member)
        if def then indexId(id, def) elseif cut > 0 then dropFromGroups(id) end
      elseif nowQueue ~= queue then
        dropFromQueue(queue, member)
        indexId(id, def)
      end
    end
  end
end
return changed
