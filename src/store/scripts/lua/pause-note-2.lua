--[[
  Write or clear a schedule's pause note, consistent with its status: a note is written only while
  the schedule is paused (or orphaned), and cleared only when it is not, so a resume racing a new
  pause never deletes the new pause's note, and a note never outlives its pause.

  Input:
    KEYS[1] state       hash: id -> state row (includes/state)
    KEYS[2] notes       hash: id -> pause note JSON `{ note, by, at }`

    ARGV[1] id
    ARGV[2] the note JSON to write ('' = clear)

  Output:
    1 written (or cleared), 0 nothing done (not paused for a write; paused again for a clear)
]]

local id = ARGV[1]
local row = redis.call('HGET', KEYS[1], id)
local paused = row and (string.sub(row, 1, 1) == 'p' or string.sub(row, 1, 1) == 'o')
if ARGV[2] == '' then
  if paused then return 0 end
  redis.call('HDEL', KEYS[2], id)
  return 1
end
if not paused then return 0 end
redis.call('HSET', KEYS[2], id, ARGV[2])
return 1
