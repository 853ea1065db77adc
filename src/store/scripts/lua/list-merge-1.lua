--[[
  One step of a partition's list of every schedule by name, then id: the first `n` members after `from`
  of its queue indexes merged (includes/names: each schedule is in exactly one of them). Redis orders
  them (a k-way merge with no comparison here): each queue index gives its first members after `from`
  (about its share of `n`, or up to `n` while fewer than `n` are read) into a scratch sorted set of the
  partition; the `n`-th of those is the bound, and each queue index not read to its end then gives its
  members up to the bound (at most `n`): the scratch set's first `n` are the merge's. The scratch set
  is deleted before the script ends. Costs two `ZRANGEBYLEX` per queue of the partition (a thousand
  queues: two thousand, in the script) and the members read.

  Input:
    KEYS[1] schedules   hash: id -> definition JSON (its base names the queue indexes and the scratch set)

    ARGV[1] from   where the step starts: `-` (the first member), or `(` and the member it follows
    ARGV[2] n      how many members (1 or more)

  Output:
    { more (1 when members may follow the last one answered, 0 when the indexes end there), read (the
      queue indexes' members read), then per member: the member, the queue of the index it is in }
]]
--- @include "includes/names"

local base = listBase(KEYS[1], 'schedules')
local scratch = base .. 'listmerge'
local from, n = ARGV[1], tonumber(ARGV[2])
local queues = redis.call('SMEMBERS', base .. 'queues')
local queueOf = {}
local lanes = {}
local count, read = 0, 0

redis.call('DEL', scratch)

-- `members` of `queue`'s index into the scratch set (ZADD in batches; a member in two indexes once)
local function add(members, queue)
  read = read + #members
  for i = 1, #members, 500 do
    local args = {}
    for j = i, math.min(i + 499, #members) do
      args[#args + 1] = 0
      args[#args + 1] = members[j]
      queueOf[members[j]] = queue
    end
    count = count + redis.call('ZADD', scratch, unpack(args))
  end
end

-- the lane's next members after where it stands, at most `limit`, up to `to` ('+': no bound)
local function readLane(lane, to, limit)
  local got = redis.call('ZRANGEBYLEX', lane.key, lane.after, to, 'LIMIT', 0, limit)
  add(got, lane.queue)
  if #got > 0 then lane.after = '(' .. got[#got] end
  return #got
end

local share = #queues <= 1 and n or math.max(1, math.ceil(2 * n / #queues))
for _, queue in ipairs(queues) do
  local lane = { key = base .. 'qnames:' .. queue, queue = queue, after = from }
  lane.ended = readLane(lane, '+', share) < share
  lanes[#lanes + 1] = lane
end

-- fewer than n read: the lanes not at their end read up to n more each, until n are read or all end
while count < n do
  local open = false
  for _, lane in ipairs(lanes) do
    if not lane.ended then
      open = true
      lane.ended = readLane(lane, '+', n) < n
    end
  end
  if not open then break end
end

-- the bound: the n-th member read; a lane not at its end reads what it holds up to it
if count >= n then
  local bound = redis.call('ZRANGE', scratch, n - 1, n - 1)[1]
  for _, lane in ipairs(lanes) do
    if not lane.ended then readLane(lane, '[' .. bound, n) end
  end
end

local page = redis.call('ZRANGE', scratch, 0, n - 1)
local more = count > n
for _, lane in ipairs(lanes) do
  if not lane.ended then more = true end
end
redis.call('DEL', scratch)

local out = { more and 1 or 0, read }
for _, member in ipairs(page) do
  out[#out + 1] = member
  out[#out + 1] = queueOf[member]
end
return out
