--[[
  Pause an active schedule with its note and its audit entry, in one step (includes/pause: status `p`,
  out of `due`, its pending re-schedule dropped; a claimed occurrence completes normally and the
  completion keeps a paused schedule out of `due`).

  Input:
    KEYS[1] state       hash: id -> state row
    KEYS[2] due         zset: id -> next due time
    KEYS[3] resched     hash: id -> next due time decided while claimed
    KEYS[4] notes       hash: id -> pause note JSON `{ note, by, at }`
    KEYS[5] audit:<id>  stream: the schedule's audit trail (includes/audit)

    ARGV[1] id
    ARGV[2] the pause note JSON
    ARGV[3] the note's text (the audit entry's `note`)
    ARGV[4..7] the audit entry's limit, actor, source, onBehalfOf: `pause`, with `note`

  Output:
    1 paused, 0 no such schedule, -1 not active (nothing written)
]]
--- @include "includes/pause"
--- @include "includes/audit"

local id = ARGV[1]
if not redis.call('HGET', KEYS[1], id) then return 0 end
if not pauseActive(KEYS[1], KEYS[2], KEYS[3], id) then return -1 end
redis.call('HSET', KEYS[4], id, ARGV[2])
audit(KEYS[5], id, 4, 'pause', { 'note', ARGV[3] })
return 1
