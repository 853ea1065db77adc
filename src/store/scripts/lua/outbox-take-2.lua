--[[
  Take the deliveries that are due, for the notifiers this replica can send to: each taken is leased
  (its due time moved `lease` ms ahead, so no other replica takes it meanwhile; a replica that dies
  sending leaves it to be taken again, at least once). A `resolved` delivery waits until its
  incident's `opened` one to the same notifier was sent (or given up): in order per incident.

  Input:
    KEYS[1] outbox      zset: delivery id `<incident>|<notifier>|<event>` -> when it is due (ms)
    KEYS[2] deliveries  hash: delivery id -> delivery JSON

    ARGV[1] lease (ms)
    ARGV[2] most: how many to take
    ARGV[3] notifiers this replica sends to, names joined by ','
    ARGV[4] clock ms: the time to judge by in place of Redis TIME (tests only; '' or absent: Redis TIME)

  Output:
    a flat list: per delivery taken, its id, its JSON and the lease's due time (the take's token)
]]
--- @include "includes/now"

local now = redisNow(ARGV[4])
local lease = tonumber(ARGV[1])
local most = tonumber(ARGV[2])
local mine = {}
for name in string.gmatch(ARGV[3], '[^,]+') do mine[name] = true end
local out = {}
local taken = 0
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, most * 4)) do
  if taken >= most then break end
  local incident, notifier, event = string.match(member, '^([^|]*)|([^|]*)|([^|]*)$')
  if notifier and mine[notifier] then
    local waits = false
    if event == 'resolved' then
      local opened = redis.call('HGET', KEYS[2], incident .. '|' .. notifier .. '|opened')
      if opened then
        local status = cjson.decode(opened).status
        waits = status ~= 'sent' and status ~= 'failed'
      end
    end
    if waits then
      redis.call('ZADD', KEYS[1], now + 1000, member)
    else
      local due = now + lease
      redis.call('ZADD', KEYS[1], due, member)
      out[#out + 1] = member
      out[#out + 1] = redis.call('HGET', KEYS[2], member) or ''
      out[#out + 1] = string.format('%d', due)
      taken = taken + 1
    end
  end
end
return out
