--[[
  Create or update a schedule's definition; re-arm it when its timing changed.

  Input:
    KEYS[1] schedules   hash: id -> definition JSON
    KEYS[2] due         zset: id -> next due time
    KEYS[3] inflight    zset: id -> claim lease expiry
    KEYS[4] state       hash: id -> state row (includes/state)
    KEYS[5] resched     hash: id -> next due time decided while claimed ('-1' = none: complete)
    KEYS[6] completed   zset: id -> completion time
    KEYS[7] claim       hash: id -> `fireAt|token`
    KEYS[8] audit:<id>  stream: the schedule's audit trail (includes/audit)
    KEYS[9] counts:<id> hash: the schedule's counters and `failstreak` (see finish-runs-5.lua)

    ARGV[1] id
    ARGV[2] definition JSON
    ARGV[3] timing fingerprint (a change re-arms the schedule)
    ARGV[4] next due time ('' = none: the schedule is completed)
    ARGV[5] now (ms): createdAt of a new schedule, completion time
    ARGV[6] source: 'c' (code) or 'r' (runtime)
    ARGV[7] keepCompleted: '1' = a completed schedule stays completed even if its timing changed
            (a code one-shot that ran is never re-armed by a start)
    ARGV[8] createdAt of the schedule an update read ('' or absent = create it if it is missing): an
            update writes only over that schedule, never over a missing one (removed meanwhile) or
            one created again since under the same id
    ARGV[9..12] the audit entry's limit, actor, source, onBehalfOf (includes/audit): `create` (with `after`, the
            definition), `update` or `restore` (`before` and `after` when the definition changed); none
            when nothing changed or nothing was written. A create keeps a trail left by a removed
            schedule of the same id (it no longer expires)
    ARGV[13] keeps streak: '1' when the definition sets `pauseOnFailure` (its runs keep a failure
            streak); else the streak is dropped, so that one counted under an earlier `pauseOnFailure`
            does not carry over into a later one across runs that kept none
    ARGV[14] labels: the definition's labels as `key=value` lines ('' = none), indexed in the same
            step (includes/labels: the ids go into the sets of their new labels, out of their old ones);
            the definition's group (`run.group`) is indexed in the same step too (includes/groups),
            and, on every save, whether it has `expect` (includes/expects), and its name, queue and status
            (includes/names: the list indexes); a partition's first create marks its group, expectations and list indexes
            complete (`groupidx`, `expectidx`, `listidx`)

  Output:
    'created' | 'updated' | 'unchanged' | 'restored' (an orphan made active again) | 'kept-completed',
    'missing' without writing anything when ARGV[8] is set and the schedule it names is gone,
    or 'claimed:<fireAt>' without writing anything when a re-timed active schedule is claimed at or
    after ARGV[4]: the caller computes a next time after that occurrence and calls again (a schedule
    never goes back to, or before, an occurrence it claimed). A re-time while claimed goes to `resched`,
    applied by the completion.
]]
--- @include "includes/state"
--- @include "includes/claim"
--- @include "includes/audit"
--- @include "includes/labels"
--- @include "includes/groups"
--- @include "includes/expects"
--- @include "includes/names"

local id = ARGV[1]
-- a parked schedule's next times were walked on the definition it had (claim-6): a write of it ends the park
redis.call('HDEL', KEYS[2] .. ':park', id)

-- A schedule without `pauseOnFailure` keeps no failure streak (finish-runs-5 neither resets nor
-- counts it): one left from an earlier definition goes.
local function dropStreak()
  if ARGV[13] ~= '1' then redis.call('HDEL', KEYS[9], 'failstreak') end
end

local row = redis.call('HGET', KEYS[4], id)
local expected = ARGV[8] or ''
if expected ~= '' and (not row or (tonumber(parseState(row).created) or 0) ~= tonumber(expected)) then
  return 'missing'
end
if not row then
  -- a partition's first schedule: nothing in it was written before the indexes (no scan needed)
  if redis.call('EXISTS', KEYS[1]) == 0 then
    markGroupsIndexed(groupBase(KEYS[1]))
    markExpectsIndexed(expectBase(KEYS[1]))
    redis.call('SET', listBase(KEYS[1], 'schedules') .. 'listidx', '1')
  end
  -- a first entry left by a schedule of this id removed by an earlier release (includes/audit)
  settleAudit(KEYS[8], id)
  redis.call('HSET', KEYS[1], id, ARGV[2])
  local status = 'a'
  if ARGV[4] == '' then
    status = 'c'
    redis.call('ZADD', KEYS[6], ARGV[5], id)
  else
    redis.call('ZADD', KEYS[2], ARGV[4], id)
  end
  redis.call('HSET', KEYS[4], id, formatState({ status = status, fired = '0', last = '', created = ARGV[5],
    fp = ARGV[3], source = ARGV[6] }))
  reindexLabels(labelBase(KEYS[1]), id, {}, labelLines(ARGV[14]))
  reindexGroup(groupBase(KEYS[1]), id, nil, storedGroup(ARGV[2]))
  if storedExpects(ARGV[2]) then reindexExpects(expectBase(KEYS[1]), id, true) end
  reindexList(listBase(KEYS[1], 'schedules'), id, nil, nil, ARGV[2], status)
  audit(KEYS[8], id, 9, 'create', { 'after', ARGV[2] })
  redis.call('PERSIST', KEYS[8])
  dropStreak()
  return 'created'
end
local s = parseState(row)
local wasStatus = s.status
local result = 'unchanged'
local before = redis.call('HGET', KEYS[1], id)
if before ~= ARGV[2] then result = 'updated' end
local retime = s.fp ~= ARGV[3]
if s.status == 'o' then
  s.status = 'a'
  retime = true
  result = 'restored'
end
if retime and s.status == 'c' and ARGV[7] == '1' then
  retime = false
  result = 'kept-completed'
end
local claimed = retime and s.status == 'a' and redis.call('ZSCORE', KEYS[3], id)
if claimed and ARGV[4] ~= '' then
  local at = claimedFireAt(KEYS[7], id)
  if at and tonumber(ARGV[4]) <= at then return 'claimed:' .. at end
end
-- the trail's first entry reads its definition from `schedules`: settled before that changes
if before ~= ARGV[2] then settleAudit(KEYS[8], id) end
redis.call('HSET', KEYS[1], id, ARGV[2])
if before ~= ARGV[2] then
  reindexLabels(labelBase(KEYS[1]), id, storedLabels(before), labelLines(ARGV[14]))
  reindexGroup(groupBase(KEYS[1]), id, storedGroup(before), storedGroup(ARGV[2]))
end
-- also when unchanged: a definition an earlier release saved (without the index) is indexed by the next save
reindexExpects(expectBase(KEYS[1]), id, storedExpects(ARGV[2]))
dropStreak()
if retime and s.status == 'c' and ARGV[4] ~= '' then
  s.status = 'a'
  redis.call('ZREM', KEYS[6], id)
end
if retime and s.status == 'a' then
  if result == 'unchanged' then result = 'updated' end
  if claimed then
    if ARGV[4] == '' then redis.call('HSET', KEYS[5], id, '-1') else redis.call('HSET', KEYS[5], id, ARGV[4]) end
  elseif ARGV[4] == '' then
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZADD', KEYS[6], ARGV[5], id)
    s.status = 'c'
  else
    redis.call('ZADD', KEYS[2], ARGV[4], id)
  end
end
s.fp = ARGV[3]
s.source = ARGV[6]
redis.call('HSET', KEYS[4], id, formatState(s))
if before ~= ARGV[2] or wasStatus ~= s.status then
  reindexList(listBase(KEYS[1], 'schedules'), id, before, wasStatus, ARGV[2], s.status)
end
local changed = before ~= ARGV[2]
if result == 'updated' or result == 'restored' or changed then
  local fields = {}
  if changed then fields = { 'before', before or '', 'after', ARGV[2] } end
  audit(KEYS[8], id, 9, result == 'restored' and 'restore' or 'update', fields)
end
return result
