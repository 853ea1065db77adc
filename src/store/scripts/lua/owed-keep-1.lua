--[[
  Before a backfill adds the occurrences it took, it keeps those still its own: an owed occurrence past
  its time may have been taken by a replica's sweep (owed-take-2 gives it a new time) and enqueued
  (owed-done-5 strikes it), while its taker was stopped. One still owed at the time its taker gave it
  is kept `lease` ms more (no sweep takes it meanwhile); the others are its taker's no longer: it adds
  nothing for them, however long it slept.

  Input:
    KEYS[1] owed-runs   zset: owed member -> the time by which its taker enqueues it

    ARGV[1] lease (ms)
    ARGV[2..] per occurrence: owed member, the time its taker was given (ms)

  Output:
    the owed members no longer the taker's, in the order given
]]
--- @include "includes/now"

local keep = redisNow() + tonumber(ARGV[1])
local lost = {}
for i = 2, #ARGV, 2 do
  local member, given = ARGV[i], tonumber(ARGV[i + 1])
  local score = tonumber(redis.call('ZSCORE', KEYS[1], member) or '')
  if score ~= given then
    lost[#lost + 1] = member
  elseif score < keep then
    redis.call('ZADD', KEYS[1], keep, member)
  end
end
return lost
