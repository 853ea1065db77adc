--[[
  Claim what is due, judged by Redis TIME: first claims whose lease lapsed (a replica died between
  claim and completion: the same fireAt is claimed again, with a new token), then schedules due up to
  ARGV[4] ms from now (the replica enqueues each at its time). Each claimed id moves from `due` to
  `inflight` with a fresh lease and token. A lapsed claim of a schedule no longer active (paused or
  errored since its claimant died) is dropped, as a live replica would drop it.

  Input:
    KEYS[1] due         zset: id -> next due time
    KEYS[2] inflight    zset: id -> claim lease expiry
    KEYS[3] claim       hash: id -> `fireAt|token`
    KEYS[4] schedules   hash: id -> definition JSON
    KEYS[5] state       hash: id -> state row
    KEYS[6] totals      hash: its `reclaimed` field counts lapsed claims taken over, `coalesced` also
                        the occurrences of parked schedules coalesced here

    ARGV[1] batch: most claims returned
    ARGV[2] lease ms
    ARGV[3] token of this claim
    ARGV[4] ahead ms ('' = 0)
    ARGV[5] replica id ('' or absent: no sharing), ARGV[6] its own horizon (ms), ARGV[7] the longest
            it sleeps between claims (ms), ARGV[8] occurrences it claimed within its last
            horizon (counted against its share), ARGV[9] imminent (ms): what is due that soon is
            claimed whatever the shares (a replica that died, or is slow to wake, holds nobody back)
    ARGV[10] clock ms: the time to judge by in place of Redis TIME (tests only; '' or absent: Redis TIME)

  Sharing a burst between replicas (ARGV[5] set): each replica is a field of the fleet hash
  (`<inflight>:fleet`, the same slot: `expiry|horizon`), refreshed at each of its claims (live until
  two leases past its next claim) and dropped once expired. With F live replicas, a claim takes fresh occurrences up to its share, ceil((due within
  the horizon + claims in flight) / F) less what it claimed within its last horizon, so the first
  replica awake leaves the others theirs; lapsed
  claims are always taken (a take-over is never held back). The reply carries F and the longest horizon
  of the fleet: every replica then claims that far ahead, so none is always last to wake.

  Parked schedules (`<due>:park`, id -> JSON, written by the fire loop after a completion that
  coalesced an occurrence because the schedule's previous job still waited in its queue; one Redis
  only, see park.ts): a due schedule parked at exactly its due time (`e`), active and on the timing
  (fingerprint `p`) its next times were walked on, whose waiting job (`j`) is
  still there and not taken by a worker (its hash has `timestamp`, no `processedOn`) is not claimed: its
  occurrence is coalesced here as the fire loop would (counted in `coalesced` of the schedule's counters
  `c` and of `totals`; recorded on the waiting job's record `r`: its `standsFor` span grows to this
  occurrence, and a `c<ms after the job>` field while the span is within `h`, the history limit), and
  the schedule goes back in `due` at its next time (the first of `t`, the next times the fire loop
  walked ahead). Otherwise (its job started or is gone, no time left, another due time: the schedule
  was changed) the entry is dropped and the schedule is claimed as usual. The occurrences coalesced
  here are answered for the fire loop to announce.

  Output:
    { now, earliest due time left ('' = none), earliest lease expiry in `inflight` ('' = none; ours
      included: another replica's claim made in the same millisecond expires with ours),
      how many occurrences of parked schedules were coalesced here,
      then per claim: id, fireAt, reclaimed (1|0), definition JSON ('' if gone), state row ('' if gone),
      then per occurrence coalesced here: id, fireAt,
      then, with ARGV[5] set: live replicas, the fleet's longest horizon (ms) }
]]
--- @include "includes/now"

local now = redisNow(ARGV[10])
local batch = tonumber(ARGV[1])
-- a string, formatted once: a number passed to redis.call is formatted (snprintf) at every use
local expiry = tostring(now + tonumber(ARGV[2]))
local token = ARGV[3]
local horizon = now + (tonumber(ARGV[4]) or 0)
local ids, ats, again = {}, {}, {}
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, batch)
for _, id in ipairs(lapsed) do
  local c = redis.call('HGET', KEYS[3], id)
  local row = c and redis.call('HGET', KEYS[5], id)
  if c and row and string.sub(row, 1, 1) ~= 'a' then
    redis.call('HDEL', KEYS[3], id)
    redis.call('ZREM', KEYS[2], id)
  elseif c then
    ids[#ids + 1] = id
    ats[#ats + 1] = string.match(c, '^([^|]*)')
    again[#again + 1] = 1
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
if #ids > 0 then redis.call('HINCRBY', KEYS[6], 'reclaimed', #ids) end
local room = batch - #ids
local sharing = ARGV[5] and ARGV[5] ~= ''
local fleet = KEYS[2] .. ':fleet'
local fleetSize, fleetAhead = 1, tonumber(ARGV[6] or '0') or 0
if sharing then
  local all, dead = redis.call('HGETALL', fleet), {}
  for i = 1, #all, 2 do
    local e, a = string.match(all[i + 1], '^(%d+)|(%d+)$')
    if not e or tonumber(e) < now then
      dead[#dead + 1] = all[i]
    elseif all[i] ~= ARGV[5] then
      fleetSize = fleetSize + 1
      if tonumber(a) > fleetAhead then fleetAhead = tonumber(a) end
    end
  end
  if #dead > 0 then redis.call('HDEL', fleet, unpack(dead)) end
  if fleetSize > 1 then
    local total = redis.call('ZCOUNT', KEYS[1], '-inf', horizon) + redis.call('ZCARD', KEYS[2])
    local share = math.max(0, math.ceil(total / fleetSize) - #ids - tonumber(ARGV[8]))
    local imminent = redis.call('ZCOUNT', KEYS[1], '-inf', now + tonumber(ARGV[9]))
    room = math.min(room, math.max(share, imminent))
  end
end
local park, parkedIds, parkedAts = KEYS[1] .. ':park', {}, {}

-- The parked schedule `id` due at `at` (its park entry `raw`): true when its occurrence is coalesced
-- here (it stays in `due`, at its next time); false when it is to be claimed (the entry dropped).
local function coalesceParked(id, at, raw)
  local ok, p = pcall(cjson.decode, raw)
  -- an entry not as park.ts writes it is dropped, never an error (this script claims for everyone)
  ok = ok and type(p) == 'table' and type(p.t) == 'table' and type(p.e) == 'number'
    and type(p.w) == 'number' and type(p.f) == 'number' and type(p.n) == 'number' and type(p.h) == 'number'
    and type(p.j) == 'string' and type(p.r) == 'string' and type(p.c) == 'string'
  local row = ok and tonumber(at) == p.e and type(p.t[1]) == 'number' and redis.call('HGET', KEYS[5], id)
  -- still active, on the timing the next times were walked on (`status|fired|last|created|fp|source`)
  local status, fp = string.match(row or '', '^(%a)|[^|]*|[^|]*|[^|]*|([^|]*)')
  local job = status == 'a' and fp == p.p and redis.call('HMGET', p.j, 'timestamp', 'processedOn')
  if not job or not job[1] or job[2] then
    redis.call('HDEL', park, id)
    return false
  end
  p.n = p.n + 1
  redis.call('HINCRBY', p.c, 'coalesced', 1)
  parkedIds[#parkedIds + 1] = id
  parkedAts[#parkedAts + 1] = p.e
  if redis.call('EXISTS', p.r) == 1 then
    local span = string.format('{"from":%d,"to":%d,"count":%d,"cause":"consumer-behind"}', p.f, p.e, p.n)
    if p.n <= p.h then
      redis.call('HSET', p.r, 'standsFor', span, string.format('c%d', p.e - p.w), '1')
    else
      redis.call('HSET', p.r, 'standsFor', span)
    end
  end
  p.e = table.remove(p.t, 1)
  redis.call('ZADD', KEYS[1], p.e, id)
  redis.call('HSET', park, id, cjson.encode(p))
  return true
end

if room > 0 then
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', horizon, 'WITHSCORES', 'LIMIT', 0, room)
  local entries = {}
  if #due > 0 and redis.call('EXISTS', park) == 1 then
    local dueIds = {}
    for i = 1, #due, 2 do dueIds[#dueIds + 1] = due[i] end
    entries = redis.call('HMGET', park, unpack(dueIds))
  end
  local fresh = {}
  for i = 1, #due, 2 do
    local raw = entries[(i + 1) / 2]
    if not (raw and coalesceParked(due[i], due[i + 1], raw)) then
      fresh[#fresh + 1] = due[i]
      ids[#ids + 1] = due[i]
      ats[#ats + 1] = due[i + 1]
      again[#again + 1] = 0
    end
  end
  if #fresh > 0 then redis.call('ZREM', KEYS[1], unpack(fresh)) end
  if #parkedIds > 0 then redis.call('HINCRBY', KEYS[6], 'coalesced', #parkedIds) end
end
local out = { now, '', '', #parkedIds }
if #ids > 0 then
  local zargs, hargs = {}, {}
  for i, id in ipairs(ids) do
    zargs[#zargs + 1] = expiry
    zargs[#zargs + 1] = id
    hargs[#hargs + 1] = id
    hargs[#hargs + 1] = ats[i] .. '|' .. token
  end
  redis.call('ZADD', KEYS[2], unpack(zargs))
  redis.call('HSET', KEYS[3], unpack(hargs))
  local defs = redis.call('HMGET', KEYS[4], unpack(ids))
  local states = redis.call('HMGET', KEYS[5], unpack(ids))
  for i, id in ipairs(ids) do
    out[#out + 1] = id
    out[#out + 1] = ats[i]
    out[#out + 1] = again[i]
    out[#out + 1] = defs[i] or ''
    out[#out + 1] = states[i] or ''
  end
end
for i, id in ipairs(parkedIds) do
  out[#out + 1] = id
  out[#out + 1] = parkedAts[i]
end
local d = redis.call('ZRANGE', KEYS[1], '0', '0', 'WITHSCORES')
if d[2] then out[2] = d[2] end
local l = redis.call('ZRANGE', KEYS[2], '0', '0', 'WITHSCORES')
if l[2] then out[3] = l[2] end
if sharing then
  -- live until two leases past the time it will claim again (the earliest due time left, less its
  -- horizon; at most ARGV[7] away): one that died drops out of the fleet soon after
  local wake = now + tonumber(ARGV[7])
  if d[2] then wake = math.min(wake, math.max(now, tonumber(d[2]) - (tonumber(ARGV[4]) or 0))) end
  redis.call('HSET', fleet, ARGV[5], (wake + 2 * tonumber(ARGV[2])) .. '|' .. ARGV[6])
  out[#out + 1] = fleetSize
  out[#out + 1] = fleetAhead
end
return out
