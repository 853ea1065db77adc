--[[
  Take the owed occurrences whose taker did not enqueue them in time (it crashed, or stalled): each is
  given a new time (`now + lease`: a replica that takes it and dies leaves it to the next) and returned
  with its schedule's definition. One of a schedule that no longer exists is struck.

  Input:
    KEYS[1] owed-runs   zset: owed member -> the time by which its taker enqueues it
    KEYS[2] schedules   hash: schedule id -> definition

    ARGV[1] lease (ms)
    ARGV[2] at most this many

  Output:
    the time each is given (`now + lease`: a taker that stalls past it adds nothing, owed-keep-1),
    then pairs: owed member, definition JSON
]]
--- @include "includes/now"

local now = redisNow()
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local given = now + tonumber(ARGV[1])
local out = { given }
for _, m in ipairs(due) do
  local id = string.match(m, '^[^|]*|[^|]*|[^|]*|[^|]*|(.*)$')
  local def = id and redis.call('HGET', KEYS[2], id)
  if def then
    redis.call('ZADD', KEYS[1], given, m)
    out[#out + 1] = m
    out[#out + 1] = def
  else
    redis.call('ZREM', KEYS[1], m)
  end
end
return out
