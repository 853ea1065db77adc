--[[
  Open or resolve the incident of one schedule and one cause, once whatever the number of replicas
  deciding it: the open incidents are a hash, changed only here. The same script puts the incident's
  deliveries in the outbox (one per notifier and event), so an incident is never recorded without
  them, nor delivered without being recorded. An occurrence whose incident of this cause was resolved
  already never opens it again.

  Input:
    KEYS[1] open        hash: `<cause>|<schedule id>` -> id of its open incident
    KEYS[2] closed      hash: `<cause>|<schedule id>` -> occurrence (ms) of its last resolved incident
    KEYS[3] incidents   hash: incident id -> incident JSON
    KEYS[4] recent      zset: incident id -> when it opened (ms, Redis time)
    KEYS[5] seq         counter of incident ids
    KEYS[6] outbox      zset: delivery id `<incident>|<notifier>|<event>` -> when it is due (ms)
    KEYS[7] deliveries  hash: delivery id -> delivery JSON

    ARGV[1] op: 'open' or 'resolve'
    ARGV[2] slot: `<cause>|<schedule id>`
    ARGV[3] occurrence (ms) that opens it; '' on a resolve
    ARGV[4] incident JSON (open: scheduleId, cause, occurrence, why, queue...) or the why of a resolve
    ARGV[5] notifiers, names joined by ',' ('' none); a resolve tells those its open told
    ARGV[6] keep: how many incidents are kept (the oldest resolved ones beyond it are dropped)

  Output:
    { 1, id } opened or resolved; { 0, id } already open (open) / not open, id '' (resolve);
    { -1, '' } this occurrence's incident of this cause was resolved already
]]
--- @include "includes/now"

local now = redisNow()
local slot = ARGV[2]

local function deliver(id, names, event)
  for name in string.gmatch(names, '[^,]+') do
    local did = id .. '|' .. name .. '|' .. event
    redis.call('HSET', KEYS[7], did, cjson.encode({
      id = did, incident = id, notifier = name, event = event,
      createdAt = now, attempts = 0, status = 'pending'
    }))
    redis.call('ZADD', KEYS[6], now, did)
  end
end

if ARGV[1] == 'resolve' then
  local id = redis.call('HGET', KEYS[1], slot)
  if not id then return { 0, '' } end
  redis.call('HDEL', KEYS[1], slot)
  local incident = cjson.decode(redis.call('HGET', KEYS[3], id) or '{}')
  incident.status = 'resolved'
  incident.resolvedAt = now
  incident.resolvedWhy = ARGV[4]
  redis.call('HSET', KEYS[3], id, cjson.encode(incident))
  redis.call('HSET', KEYS[2], slot, tostring(incident.occurrence or 0))
  deliver(id, table.concat(incident.notify or {}, ','), 'resolved')
  return { 1, id }
end

local open = redis.call('HGET', KEYS[1], slot)
if open then return { 0, open } end
local occurrence = tonumber(ARGV[3])
local last = tonumber(redis.call('HGET', KEYS[2], slot) or '')
if last and occurrence <= last then return { -1, '' } end

local id = 'inc-' .. redis.call('INCR', KEYS[5])
local incident = cjson.decode(ARGV[4])
incident.id = id
incident.status = 'open'
incident.openedAt = now
local notify = {}
for name in string.gmatch(ARGV[5], '[^,]+') do notify[#notify + 1] = name end
incident.notify = notify
local encoded = cjson.encode(incident)
-- cjson writes an empty table as {}: an incident told nobody lists no notifier
encoded = string.gsub(encoded, '"notify":{}', '"notify":[]')
redis.call('HSET', KEYS[3], id, encoded)
redis.call('HSET', KEYS[1], slot, id)
redis.call('ZADD', KEYS[4], now, id)
deliver(id, ARGV[5], 'opened')

-- keep the newest `keep` incidents: drop a few of the oldest resolved ones per open
local keep = tonumber(ARGV[6])
local extra = redis.call('ZCARD', KEYS[4]) - keep
if extra > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[4], 0, math.min(extra, 10) - 1)) do
    local raw = redis.call('HGET', KEYS[3], old)
    local o = raw and cjson.decode(raw) or {}
    if o.status ~= 'open' then
      for _, name in ipairs(o.notify or {}) do
        for _, event in ipairs({ 'opened', 'resolved' }) do
          local did = old .. '|' .. name .. '|' .. event
          redis.call('HDEL', KEYS[7], did)
          redis.call('ZREM', KEYS[6], did)
        end
      end
      redis.call('HDEL', KEYS[3], old)
      redis.call('ZREM', KEYS[4], old)
    end
  end
end
return { 1, id }
