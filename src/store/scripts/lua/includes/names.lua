--[[
  The list indexes of a partition, each a sorted set whose every score is 0 and whose members are
  `<name>\0<id>`, so that `ZRANGE ... BYLEX` walks its schedules by name, then id:
    `<base>:qnames:<queue>`   the schedules targeting `queue` (`queueNames`); `<base>:queues` is the
                              set of the queues some schedule of the partition targets (`queues`).
                              Every schedule is in exactly one: the list of all of them is a merge of
                              the partition's queue indexes (`list-walk.ts`), so a schedule costs one
                              name-ordered entry, not two
    `<base>:snames:<status>`  the schedules shown `paused` (state p or o), `completed` (c) or `errored`
                              (e) (`statusNames`); an active one is in none (active: the rest)
  Written in the same step as the definition by the scripts that write and remove definitions
  (upsert-9, remove-13: `reindexList`), and as the status by every script that moves a state row from
  one status to another (`setStatus` in includes/state, complete-n's completion: `reindexStatus`);
  `repair-index-3` repairs what a writer that kept no index (an earlier release) left. (`<base>:names`,
  an index of every schedule that data format 2 kept beside them, is deleted by the upgrade to format 3.)

  Every key is built from one of the partition's keys (its base, hash tag included: the script's slot).
]]

-- The partition's base (`<tag>:bb:`) from one of its keys, `<base><last>`.
local function listBase(key, last)
  return string.sub(key, 1, #key - #last)
end

-- The status index a state code is listed in (nil: active, in none).
local STATUS_INDEX = { p = 'paused', o = 'paused', c = 'completed', e = 'errored' }

-- The name (its id when it has none or does not decode) and queue ('' when none) a definition JSON lists under.
local function storedNameQueue(id, defJSON)
  local ok, def = pcall(cjson.decode, defJSON)
  local name, queue = id, ''
  if ok and type(def) == 'table' then
    if type(def.name) == 'string' then name = def.name end
    if type(def.queue) == 'string' then queue = def.queue end
  end
  return name, queue
end

local function storedName(id, defJSON)
  local name = storedNameQueue(id, defJSON)
  return name
end

-- Move `id` in the partition's list indexes (`base`) from definition `old` in state code `oldCode` to
-- definition `new` in state code `newCode` (a nil definition: not there).
local function reindexList(base, id, old, oldCode, new, newCode)
  local fromName, fromQueue, toName, toQueue
  if old then fromName, fromQueue = storedNameQueue(id, old) end
  if new then toName, toQueue = storedNameQueue(id, new) end
  local from = fromName and (fromName .. '\0' .. id)
  local to = toName and (toName .. '\0' .. id)
  if from ~= to or fromQueue ~= toQueue then
    if from then
      local q = base .. 'qnames:' .. fromQueue
      redis.call('ZREM', q, from)
      if redis.call('EXISTS', q) == 0 then redis.call('SREM', base .. 'queues', fromQueue) end
    end
    if to then
      redis.call('ZADD', base .. 'qnames:' .. toQueue, 0, to)
      redis.call('SADD', base .. 'queues', toQueue)
    end
  end
  local fromStatus = from and STATUS_INDEX[oldCode or 'a']
  local toStatus = to and STATUS_INDEX[newCode or 'a']
  if from ~= to or fromStatus ~= toStatus then
    if fromStatus then redis.call('ZREM', base .. 'snames:' .. fromStatus, from) end
    if toStatus then redis.call('ZADD', base .. 'snames:' .. toStatus, 0, to) end
  end
end

-- `id`'s state code moves from `from` to `to`, its definition unchanged: the status index follows (its
-- member named as the stored definition names it).
local function reindexStatus(base, id, from, to)
  local a, b = STATUS_INDEX[from], STATUS_INDEX[to]
  if a == b then return end
  local def = redis.call('HGET', base .. 'schedules', id)
  if not def then return end
  local member = storedName(id, def) .. '\0' .. id
  if a then redis.call('ZREM', base .. 'snames:' .. a, member) end
  if b then redis.call('ZADD', base .. 'snames:' .. b, 0, member) end
end
