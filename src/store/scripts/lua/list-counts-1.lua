--[[
  The counts of a partition's list indexes (includes/names), read in one step: what a list read checks
  before it pages (`checkListIndexes`: do the indexes count the definitions?) and what its totals and the
  status counts are made of. The queue indexes are counted over the partition's set of queues, so the
  count of every schedule costs one `ZCARD` per queue, in the script (a deployment of a thousand queues
  pays a thousand `ZCARD`s here, not a thousand round trips).

  Input:
    KEYS[1] schedules   hash: id -> definition JSON (its base names the list indexes' keys)

  Output:
    { definitions (HLEN schedules), listed (the queue indexes' members, summed), marked (1 when the
      partition's `listidx` mark is set), paused, completed, errored (each status index's members),
      names (1 when a `names` key, the index data format 2 kept of every schedule, is still there) }
]]
--- @include "includes/names"

local base = listBase(KEYS[1], 'schedules')
local listed = 0
for _, queue in ipairs(redis.call('SMEMBERS', base .. 'queues')) do
  listed = listed + redis.call('ZCARD', base .. 'qnames:' .. queue)
end
return {
  redis.call('HLEN', KEYS[1]),
  listed,
  redis.call('EXISTS', base .. 'listidx'),
  redis.call('ZCARD', base .. 'snames:paused'),
  redis.call('ZCARD', base .. 'snames:completed'),
  redis.call('ZCARD', base .. 'snames:errored'),
  redis.call('EXISTS', base .. 'names'),
}
