--[[
  A worker's graceful close lets its deployment's hold on a BullMQ queue go (queue-owner.ts):
  compare-and-delete in one step, so that a hold another deployment took meanwhile is left alone.

  Input:
    KEYS[1] owner   string: the prefix of the deployment holding the queue (`<BullMQ prefix>:<queue>:bb:deployment`)

    ARGV[1] prefix   the deployment letting it go

  Output:
    1 when released, 0 when the queue was not this deployment's
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
