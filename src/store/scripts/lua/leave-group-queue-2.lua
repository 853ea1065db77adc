--[[
  Leave an exclusion group's line (after giving up waiting).

  Input:
    KEYS[1] group:<name>:queue    zset: waiting lease id -> arrival ticket
    KEYS[2] group:<name>:waiters  zset: waiting lease id -> heartbeat expiry

    ARGV[1] lease id

  Output:
    1
]]

redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
