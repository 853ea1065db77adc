--[[
  Record what became of a delivery taken from the outbox: `sent` and `failed` (given up) leave the
  outbox; `retry` puts it back at its next attempt's time, unless another replica took it since (its
  lease lapsed: the token differs), whose send then decides.

  Input:
    KEYS[1] outbox      zset: delivery id -> when it is due (ms)
    KEYS[2] deliveries  hash: delivery id -> delivery JSON
    KEYS[3] stats       hash: `<notifier>|<outcome>` -> count

    ARGV[1] delivery id
    ARGV[2] token: the due time its take gave it
    ARGV[3] outcome: 'sent', 'retry' or 'failed'
    ARGV[4] the delivery JSON to store (attempts, status, last error)
    ARGV[5] retry at (ms): its next attempt's due time ('' unless a retry)
    ARGV[6] notifier name, for the counters

  Output:
    1 recorded, 0 a retry of a delivery taken by another replica since (nothing written)
]]

if ARGV[3] == 'retry' then
  local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
  if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
  redis.call('ZADD', KEYS[1], ARGV[5], ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('HINCRBY', KEYS[3], ARGV[6] .. '|' .. ARGV[3], 1)
return 1
