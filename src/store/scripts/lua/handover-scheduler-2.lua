--[[
  Hand one of BullMQ's job schedulers over to bullbeat (`import:bullmq`): when the scheduler's next
  job is still the one at the hand-over instant, its `repeat` entry and hash go and that job stays,
  to run once as a plain delayed job.

  Input:
    KEYS[1] repeat      zset: BullMQ's job schedulers of the queue -> next fire time
    KEYS[2] scheduler   hash: the scheduler's definition (`<repeat>:<scheduler id>`)

    ARGV[1] the scheduler id
    ARGV[2] the instant of the pending job to keep ('' = none)

  Output:
    1 the entry and hash were removed and the pending job kept, 0 there is no such scheduler,
    2 its pending job is another (nothing written: the caller reads the new one and tries again)
]]

local millis = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not millis then return 0 end
if ARGV[2] == '' or tonumber(millis) ~= tonumber(ARGV[2]) then return 2 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1
