--[[
  Delete a schedule: its definition, state, due entry, claim, pending re-schedule, completion entry,
  error reason, history and counters (the totals keep what it contributed), and its labels', group's,
  expectations' and list index entries (by name, queue, status) (includes/labels, includes/groups, includes/expects,
  includes/names). Deleting the claim makes
  a claimant's completion fail its compare-and-set. Its last fencing token is kept in the partition's
  `totals` (`fence`, the highest of the schedules removed): a schedule created again under the same id
  hands out tokens above it (start-runs-1), so a run of the removed one stays fenced off.

  Input:
    KEYS[1] schedules   KEYS[2] due        KEYS[3] inflight   KEYS[4] claim
    KEYS[5] state       KEYS[6] resched    KEYS[7] completed
    KEYS[8] runs:<id>   KEYS[9] runidx:<id>   KEYS[10] counts:<id>
    (the records, `rec:<id>:<field>` for each field of `runidx:<id>`, are built from KEYS[8]: see
    includes/record)
    KEYS[11] errors     KEYS[12] totals (the partition's)
    KEYS[13] audit:<id> (includes/audit)

    ARGV[1] id
    ARGV[2] required status ('' = any): removed only if its state row has it
    ARGV[3..6] the audit entry's limit, actor, source, onBehalfOf: `remove`, with `before` (the definition removed)
    ARGV[7] how long the trail is kept after the remove (ms; 0 = deleted with the schedule)

  Output:
    1 if removed, 0 if there was no definition or its status did not match
]]
--- @include "includes/audit"
--- @include "includes/labels"
--- @include "includes/groups"
--- @include "includes/expects"
--- @include "includes/names"

local id = ARGV[1]
local row = redis.call('HGET', KEYS[5], id)
if ARGV[2] ~= '' and (not row or string.sub(row, 1, 1) ~= ARGV[2]) then return 0 end
local def = redis.call('HGET', KEYS[1], id)
-- the trail's first entry reads its definition from `schedules`: settled before it goes (includes/audit)
settleAudit(KEYS[13], id)
local existed = redis.call('HDEL', KEYS[1], id)
if def then
  reindexLabels(labelBase(KEYS[1]), id, storedLabels(def), {})
  reindexGroup(groupBase(KEYS[1]), id, storedGroup(def), nil)
  reindexExpects(expectBase(KEYS[1]), id, false)
  reindexList(listBase(KEYS[1], 'schedules'), id, def, row and string.sub(row, 1, 1), nil, nil)
end
redis.call('ZREM', KEYS[2], id)
redis.call('HDEL', KEYS[2] .. ':park', id) -- its park entry (claim-6), if it was parked
redis.call('ZREM', KEYS[3], id)
redis.call('HDEL', KEYS[4], id)
redis.call('HDEL', KEYS[5], id)
redis.call('HDEL', KEYS[6], id)
redis.call('ZREM', KEYS[7], id)
local fence = tonumber(redis.call('HGET', KEYS[10], 'fence') or '0')
if fence > tonumber(redis.call('HGET', KEYS[12], 'fence') or '0') then
  redis.call('HSET', KEYS[12], 'fence', fence)
end
local fields = redis.call('ZRANGE', KEYS[9], 0, -1)
if #fields > 0 then
  local recBase = string.sub(KEYS[8], 1, #KEYS[8] - #id - 5) .. 'rec:' .. id .. ':'
  for i, f in ipairs(fields) do fields[i] = recBase .. f end
  redis.call('DEL', unpack(fields))
end
redis.call('DEL', KEYS[8], KEYS[9], KEYS[10])
redis.call('HDEL', KEYS[11], id)
if existed == 1 then
  audit(KEYS[13], id, 3, 'remove', { 'before', def })
  local keep = tonumber(ARGV[7]) or 0
  if keep > 0 then redis.call('PEXPIRE', KEYS[13], keep) else redis.call('DEL', KEYS[13]) end
end
return existed
