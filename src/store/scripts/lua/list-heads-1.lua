--[[
  The first members after `from` of each of a partition's queue indexes (includes/names), read in one
  step: the first read of a walk that merges them (`list-walk.ts`), which would otherwise send a
  `ZRANGEBYLEX` per queue (a thousand queues: a thousand commands). Read only.

  Input:
    KEYS[1] schedules   hash: id -> definition JSON (its base names the queue indexes)

    ARGV[1] from   where each index is read from: `-` (its first member), or `(` and the member it follows
    ARGV[2] n      how many members the walk takes first: each index gives its share, about `2n / k` of
                   k queues (at least 1; `n` when there is one queue)

  Output:
    { share (the most members read from each index), then per queue of the partition: its name, how
      many members follow, those members in order }
]]
--- @include "includes/names"

local base = listBase(KEYS[1], 'schedules')
local queues = redis.call('SMEMBERS', base .. 'queues')
local n = tonumber(ARGV[2])
local share = #queues <= 1 and n or math.max(1, math.ceil(2 * n / #queues))
local out = { share }
for _, queue in ipairs(queues) do
  local got = redis.call('ZRANGEBYLEX', base .. 'qnames:' .. queue, ARGV[1], '+', 'LIMIT', 0, share)
  out[#out + 1] = queue
  out[#out + 1] = #got
  for _, member in ipairs(got) do out[#out + 1] = member end
end
return out
