// Lua scripts of the schedule store. Every key is under one hash tag ({prefix}), so each script is
// single-slot. The `state` hash holds, per schedule, `status|fired|lastFire|createdAt|fingerprint|source`:
// status a(ctive) p(aused) c(ompleted) o(rphaned: a code schedule no deployed code defines; reported
// as paused) e(rrored: cannot be planned or enqueued, see error-scripts.ts), source c(ode) or r(untime). A schedule's id is in `due` (scored by its next fire time)
// or in `inflight` (claimed: scored by the claim's lease expiry, `claim` holds `fireAt|token`), never both.

const STATE_PATTERN = `'^(%a)|(%d*)|(%d*)|(%d*)|([^|]*)|(%a)$'`;

/**
 * KEYS: schedules, due, inflight, state, resched, completed, claim.
 * ARGV: id, def, fingerprint, next ('' = none), now, source, keepCompleted ('1': a completed schedule stays
 * completed even if its timing changed: a code-defined one-shot that ran is never re-armed by a start).
 * Returns created | updated | unchanged | restored | kept-completed, or `claimed:<fireAt>` without writing
 * anything when a re-timed schedule is claimed at or after `next`: the caller computes a next time after
 * that occurrence and calls again (a schedule never goes back to, or before, an occurrence it claimed).
 */
export const UPSERT = `
local id = ARGV[1]
local st = redis.call('HGET', KEYS[4], id)
if not st then
  redis.call('HSET', KEYS[1], id, ARGV[2])
  local status = 'a'
  if ARGV[4] == '' then
    status = 'c'
    redis.call('ZADD', KEYS[6], ARGV[5], id)
  else
    redis.call('ZADD', KEYS[2], ARGV[4], id)
  end
  redis.call('HSET', KEYS[4], id, status .. '|0||' .. ARGV[5] .. '|' .. ARGV[3] .. '|' .. ARGV[6])
  return 'created'
end
local status, fired, last, created, fp = string.match(st, ${STATE_PATTERN})
local old = redis.call('HGET', KEYS[1], id)
local result = 'unchanged'
if old ~= ARGV[2] then result = 'updated' end
local retime = fp ~= ARGV[3]
if status == 'o' then
  status = 'a'
  retime = true
  result = 'restored'
end
if retime and status == 'c' and ARGV[7] == '1' then
  retime = false
  result = 'kept-completed'
end
local claimed = retime and status == 'a' and redis.call('ZSCORE', KEYS[3], id)
if claimed and ARGV[4] ~= '' then
  local c = redis.call('HGET', KEYS[7], id)
  local at = c and tonumber(string.match(c, '^([^|]*)'))
  if at and tonumber(ARGV[4]) <= at then return 'claimed:' .. at end
end
redis.call('HSET', KEYS[1], id, ARGV[2])
if retime and status == 'c' and ARGV[4] ~= '' then
  status = 'a'
  redis.call('ZREM', KEYS[6], id)
end
if retime and status == 'a' then
  if result == 'unchanged' then result = 'updated' end
  if claimed then
    if ARGV[4] == '' then redis.call('HSET', KEYS[5], id, '-1') else redis.call('HSET', KEYS[5], id, ARGV[4]) end
  elseif ARGV[4] == '' then
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZADD', KEYS[6], ARGV[5], id)
    status = 'c'
  else
    redis.call('ZADD', KEYS[2], ARGV[4], id)
  end
end
redis.call('HSET', KEYS[4], id, status .. '|' .. fired .. '|' .. last .. '|' .. created .. '|' .. ARGV[3] .. '|' .. ARGV[6])
return result
`;

/**
 * Claim what is due, judged by Redis TIME: first claims whose lease lapsed (a replica died between
 * claim and completion: the same fireAt is claimed again), then schedules due up to \`ahead\` ms from
 * now (the replica enqueues each at its time). Each claimed id moves from \`due\` to \`inflight\` with
 * a fresh lease and token.
 * KEYS: due, inflight, claim, schedules, state, totals (its \`reclaimed\` field counts lapsed claims).
 * ARGV: batch, leaseMs, token, ahead (ms; '' = 0).
 * Returns: now, earliest due ('' if none), earliest lease expiry of other claims ('' if none), then per claim
 * id, fireAt, reclaimed (0/1), definition, state.
 */
export const CLAIM = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local batch = tonumber(ARGV[1])
local expiry = now + tonumber(ARGV[2])
local token = ARGV[3]
local horizon = now + (tonumber(ARGV[4]) or 0)
local ids, ats, again = {}, {}, {}
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, batch)
for _, id in ipairs(lapsed) do
  local c = redis.call('HGET', KEYS[3], id)
  local st = c and redis.call('HGET', KEYS[5], id)
  if c and st and string.sub(st, 1, 1) ~= 'a' then
    -- paused (or errored) since its claimant died: its occurrence is dropped, as a live replica would
    redis.call('HDEL', KEYS[3], id)
    redis.call('ZREM', KEYS[2], id)
    c = nil
  elseif c then
    local at = string.match(c, '^([^|]*)')
    ids[#ids + 1] = id
    ats[#ats + 1] = at
    again[#again + 1] = 1
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
if #ids > 0 then redis.call('HINCRBY', KEYS[6], 'reclaimed', #ids) end
if #ids < batch then
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', horizon, 'WITHSCORES', 'LIMIT', 0, batch - #ids)
  local fresh = {}
  for i = 1, #due, 2 do
    fresh[#fresh + 1] = due[i]
    ids[#ids + 1] = due[i]
    ats[#ats + 1] = due[i + 1]
    again[#again + 1] = 0
  end
  if #fresh > 0 then redis.call('ZREM', KEYS[1], unpack(fresh)) end
end
local out = { now, '', '' }
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
local d = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if d[2] then out[2] = d[2] end
-- the earliest lease in flight: another replica's claim made in the same millisecond as ours expires
-- at \`expiry\` too, so it is not filtered out (that hid live work: a survivor slept maxSleepMs)
local l = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if l[2] then out[3] = l[2] end
return out
`;

/**
 * Complete claims: for each one whose claim is still ours (compare-and-set on `fireAt|token`), write
 * its records, count the run, and put it back in `due` at its next time (or complete it). A claim
 * that lapsed and was taken over is left to the new owner, who enqueues the same job id.
 * KEYS: due, inflight, claim, state, resched, completed, totals.
 * ARGV: history limit, now, token, key base (\`{prefix}:bb\`, the runs/runidx/counts keys of each id are
 * built from it: same hash tag, same slot), then per item 6 values: id, fireAt, next ('-1' = none),
 * the \`enqueued\` record JSON ('' = not enqueued), other records (JSON [[field, score, patch,
 * counter]] or ''), missed beyond the records. The \`enqueued\` record is written with HSETNX; only
 * when a record is there already (a worker started the job first, or a take-over) is it merged, and
 * it never overwrites an outcome a worker wrote.
 * Returns how many were completed.
 */
export const COMPLETE = `
local limit = tonumber(ARGV[1])
local slack = math.max(1, math.floor(limit / 10))
local now = ARGV[2]
local function trim(runs, idx)
  local excess = redis.call('ZCARD', idx) - limit
  if excess >= slack then
    local old = redis.call('ZRANGE', idx, 0, excess - 1)
    redis.call('ZREMRANGEBYRANK', idx, 0, excess - 1)
    redis.call('HDEL', runs, unpack(old))
  end
end
local function merge(runs, idx, counts, field, score, patch, counter)
  local cur = redis.call('HGET', runs, field)
  local rec = cur and cjson.decode(cur) or {}
  for k, v in pairs(patch) do
    if not (k == 'outcome' and v == 'enqueued' and rec.outcome) then rec[k] = v end
  end
  redis.call('HSET', runs, field, cjson.encode(rec))
  redis.call('ZADD', idx, score, field)
  trim(runs, idx)
  if counter ~= '' then
    redis.call('HINCRBY', counts, counter, 1)
    redis.call('HINCRBY', KEYS[7], counter, 1)
  end
end
local token = ARGV[3]
local kb = ARGV[4]
local n = (#ARGV - 4) / 6
-- one read for the batch: their claims, states and (rarely any) pending re-schedules
local ids = {}
for j = 0, n - 1 do ids[j + 1] = ARGV[5 + j * 6] end
local claims = redis.call('HMGET', KEYS[3], unpack(ids))
local states = redis.call('HMGET', KEYS[4], unpack(ids))
local anyResched = redis.call('HLEN', KEYS[5]) > 0
local mine, due, stateArgs = {}, {}, {}
for j = 0, n - 1 do
  local a = 5 + j * 6
  local id = ARGV[a]
  local f = ARGV[a + 1]
  local st = states[j + 1]
  if claims[j + 1] == f .. '|' .. token then
    mine[#mine + 1] = id
    if st then
      local runs, idx, counts = kb .. ':runs:' .. id, kb .. ':runidx:' .. id, kb .. ':counts:' .. id
      local status, fired, last, rest = string.match(st, '^(%a)|(%d*)|(%d*)|(.*)$')
      local enq = ARGV[a + 3]
      if ARGV[a + 4] ~= '' then
        for _, r in ipairs(cjson.decode(ARGV[a + 4])) do
          merge(runs, idx, counts, r[1], r[2], r[3], r[4])
        end
      end
      if enq ~= '' then
        fired = (tonumber(fired) or 0) + 1
        last = f
        if redis.call('HSETNX', runs, f, enq) == 1 then
          redis.call('ZADD', idx, f, f)
          -- the index grows by one per run: look at its size every slack-th run only
          if fired % slack == 0 then trim(runs, idx) end
        else
          merge(runs, idx, counts, f, f, cjson.decode(enq), '')
        end
      end
      local mc = tonumber(ARGV[a + 5])
      if mc > 0 then
        redis.call('HINCRBY', counts, 'missed', mc)
        redis.call('HINCRBY', KEYS[7], 'missed', mc)
      end
      local rs = anyResched and redis.call('HGET', KEYS[5], id)
      if rs then redis.call('HDEL', KEYS[5], id) end
      if status == 'a' then
        local nxt = ARGV[a + 2]
        -- a re-schedule made while claimed, unless it would send the schedule back to (or before) this occurrence
        if rs and (rs == '-1' or tonumber(rs) > tonumber(f)) then nxt = rs end
        if nxt == '-1' then
          status = 'c'
          redis.call('ZADD', KEYS[6], now, id)
        else
          due[#due + 1] = nxt
          due[#due + 1] = id
        end
      end
      stateArgs[#stateArgs + 1] = id
      stateArgs[#stateArgs + 1] = status .. '|' .. fired .. '|' .. last .. '|' .. rest
    end
  end
end
if #mine > 0 then
  redis.call('HDEL', KEYS[3], unpack(mine))
  redis.call('ZREM', KEYS[2], unpack(mine))
end
if #due > 0 then redis.call('ZADD', KEYS[1], unpack(due)) end
if #stateArgs > 0 then redis.call('HSET', KEYS[4], unpack(stateArgs)) end
return #stateArgs / 2
`;

/**
 * Move a schedule between statuses. KEYS: state, due, inflight, resched, claim.
 * ARGV: id, from statuses (e.g. 'a'), to status, next ('' = leave due alone).
 * Returns 1 done, 0 no such schedule, -1 not in one of \`from\`, -2 nothing written: it is claimed at or
 * after \`next\` (re-read, and resume after the claimed occurrence). Leaving 'a' drops a pending re-schedule:
 * a later resume computes a fresh one (a stale one would send the schedule back in time).
 */
export const SET_STATUS = `
local st = redis.call('HGET', KEYS[1], ARGV[1])
if not st then return 0 end
local status, rest = string.match(st, '^(%a)|(.*)$')
if not string.find(ARGV[2], status, 1, true) then return -1 end
if ARGV[3] == 'a' then
  if ARGV[4] ~= '' then
    if redis.call('ZSCORE', KEYS[3], ARGV[1]) then
      local c = redis.call('HGET', KEYS[5], ARGV[1])
      local at = c and tonumber(string.match(c, '^([^|]*)'))
      if at and tonumber(ARGV[4]) <= at then return -2 end
      redis.call('HSET', KEYS[4], ARGV[1], ARGV[4])
    else
      redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
    end
  end
else
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[4], ARGV[1])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3] .. '|' .. rest)
return 1
`;

/**
 * KEYS: schedules, due, inflight, claim, state, resched, completed, runs, runIndex, counts, errors.
 * ARGV: id, required status ('' = any). Returns 1 if removed.
 */
export const REMOVE = `
local st = redis.call('HGET', KEYS[5], ARGV[1])
if ARGV[2] ~= '' and (not st or string.sub(st, 1, 1) ~= ARGV[2]) then return 0 end
local existed = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('HDEL', KEYS[5], ARGV[1])
redis.call('HDEL', KEYS[6], ARGV[1])
redis.call('ZREM', KEYS[7], ARGV[1])
redis.call('DEL', KEYS[8], KEYS[9], KEYS[10])
redis.call('HDEL', KEYS[11], ARGV[1])
return existed
`;
