--[[
  The upgrade step from data format 1 to 2, for one schedule (data-format.ts, `FORMAT_UPGRADES[1]`):
  its audit trail, when it is a stream holding only its `create` (an idle schedule's, as format 1
  wrote it), moved into its partition's first-entry hash (includes/audit: `compactAudit`). Safe to run
  again: a trail already moved, or not of that shape, is left as it is.

  Input:
    KEYS[1] audit:<id>          stream: the schedule's audit trail (includes/audit)
    KEYS[2] audit-first:<b>     hash: the first entries of the trails of its partition's bucket b
    KEYS[3] schedules           hash: id -> definition JSON

    ARGV[1] id

  Output:
    1 moved, 0 left as it is; an error when KEYS[2] is not the hash includes/audit derives from the id
    (keys.ts and the include out of step)
]]
--- @include "includes/audit"

local base, first = auditKeys(KEYS[1], ARGV[1])
if first ~= KEYS[2] or base .. ':schedules' ~= KEYS[3] then
  return redis.error_reply('compact-audit-3: ' .. KEYS[2] .. ' is not ' .. first .. ' (keys.ts and includes/audit differ)')
end
return compactAudit(KEYS[1], ARGV[1])
