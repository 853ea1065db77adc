--[[
  The overrides of a schedule's backfills (`backfill-overrides:<id>`, backfill-override.ts): while an
  occurrence taken by an overridden backfill is owed, its fire time names the backfill's override
  (`<fireAt>` -> override id), the override is kept once (`=<id>` -> JSON) and counts the fire times
  that name it (`#<id>`); it goes with the last of them. Whoever enqueues an owed occurrence (its
  backfill, or a replica's sweep after that backfill's process died) reads it there.
]]

-- Fire times `ts` (taken by one backfill) name override `oid` (JSON `json`), kept `ttl` ms.
local function nameOverride(overrides, oid, json, ts, ttl)
  if #ts == 0 then return end
  local args = { 'HSET', overrides, '=' .. oid, json }
  for _, t in ipairs(ts) do
    args[#args + 1] = t
    args[#args + 1] = oid
  end
  redis.call(unpack(args))
  redis.call('HINCRBY', overrides, '#' .. oid, #ts)
  redis.call('PEXPIRE', overrides, ttl)
end

-- An owed occurrence at fire time `t` is enqueued or given back: it no longer names an override.
local function dropOverride(overrides, t)
  local oid = redis.call('HGET', overrides, t)
  if not oid then return end
  redis.call('HDEL', overrides, t)
  if redis.call('HINCRBY', overrides, '#' .. oid, -1) <= 0 then
    redis.call('HDEL', overrides, '#' .. oid, '=' .. oid)
  end
end
