--[[
  The state row of a schedule (the `state` hash), its one codec in Lua (schedule-state.ts is the one
  in TypeScript): `status|fired|lastFire|createdAt|fingerprint|source`.
    status: a(ctive) p(aused) c(ompleted) o(rphaned: shown as paused) e(rrored)
    fired: runs enqueued so far; lastFire: the last enqueued fire time ('' = never); createdAt: ms;
    fingerprint: the timing's fingerprint; source: c(ode) or r(untime).
  Parsed leniently, like parseState: a missing field reads as ''.
  A script that moves a row to another status writes it with `setStatus`, which keeps the status index
  (includes/names) in the same step.
]]
--- @include "names"
local function parseState(row)
  -- a whole row in one match; a shorter one field by field
  local a, b, c, d, e, g = string.match(row, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)')
  if a then return { status = a, fired = b, last = c, created = d, fp = e, source = g } end
  local f, i = {}, 1
  for part in string.gmatch(row .. '|', '([^|]*)|') do
    f[i] = part
    i = i + 1
  end
  return { status = f[1] or '', fired = f[2] or '', last = f[3] or '', created = f[4] or '',
    fp = f[5] or '', source = f[6] or '' }
end

local function formatState(s)
  return s.status .. '|' .. s.fired .. '|' .. s.last .. '|' .. s.created .. '|' .. s.fp .. '|' .. s.source
end

-- The row with another status, every other field as it was.
local function withStatus(row, status)
  return status .. string.sub(row, 2)
end

-- Write `row` (as stored) back with status `to`, and move the schedule in the partition's status index.
local function setStatus(stateKey, id, row, to)
  redis.call('HSET', stateKey, id, withStatus(row, to))
  reindexStatus(listBase(stateKey, 'state'), id, string.sub(row, 1, 1), to)
end
