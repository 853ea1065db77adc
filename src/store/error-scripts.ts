// Lua scripts of the `errored` status (state code `e`): a schedule that cannot be planned or enqueued.
// Kept apart from store-scripts.ts; same conventions (every key under one hash tag, `state` rows
// `status|fired|lastFire|createdAt|fingerprint|source`). The reason lives in the `errors` hash.

/**
 * Mark a schedule errored, with its reason (JSON `{ reason, at, fireAt }`), out of `due` and
 * `completed` so that it is never claimed in a loop; count it in `totals.errored`.
 * From a claim (ARGV[2] = `fireAt|token`) only while the claim is still ours (the completion's
 * compare-and-set: a stale claimant cannot clobber a take-over), and only if it is still active:
 * the claim is completed without a run either way. When it was re-defined or resumed while claimed
 * (`resched` holds its new next time), the new definition is not blamed: it goes back to `due` at
 * that time (or completes on '-1'), as the completion would have put it.
 * Without a claim (at definition: its first fire time cannot be planned) from any status.
 * KEYS: state, due, inflight, claim, resched, completed, errors, totals.
 * ARGV: id, claim ('' = none), error JSON, now.
 * Returns 1 if marked errored, 0 if not (claim lost, schedule gone, not active, re-defined meanwhile).
 */
export const MARK_ERRORED = `
local id = ARGV[1]
local fromClaim = ARGV[2] ~= ''
if fromClaim then
  if redis.call('HGET', KEYS[4], id) ~= ARGV[2] then return 0 end
  redis.call('HDEL', KEYS[4], id)
  redis.call('ZREM', KEYS[3], id)
end
local st = redis.call('HGET', KEYS[1], id)
if not st then return 0 end
local status, rest = string.match(st, '^(%a)|(.*)$')
local rs = redis.call('HGET', KEYS[5], id)
if rs then redis.call('HDEL', KEYS[5], id) end
if fromClaim then
  if status ~= 'a' then return 0 end
  if rs then
    if rs == '-1' then
      redis.call('ZADD', KEYS[6], ARGV[4], id)
      redis.call('HSET', KEYS[1], id, 'c|' .. rest)
    else
      redis.call('ZADD', KEYS[2], rs, id)
    end
    return 0
  end
end
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[6], id)
redis.call('HSET', KEYS[7], id, ARGV[3])
redis.call('HSET', KEYS[1], id, 'e|' .. rest)
redis.call('HINCRBY', KEYS[8], 'errored', 1)
return 1
`;

/**
 * Clear an errored schedule (re-defined, or resumed): active again from `next`, or completed when
 * it has none; its reason is deleted whatever its status.
 * KEYS: state, due, inflight, completed, errors. ARGV: id, next ('' = none), now.
 * Returns 1 if it was errored.
 */
export const CLEAR_ERROR = `
local id = ARGV[1]
redis.call('HDEL', KEYS[5], id)
local st = redis.call('HGET', KEYS[1], id)
if not st then return 0 end
local status, rest = string.match(st, '^(%a)|(.*)$')
if status ~= 'e' then return 0 end
if ARGV[2] == '' then
  redis.call('ZADD', KEYS[4], ARGV[3], id)
  redis.call('HSET', KEYS[1], id, 'c|' .. rest)
else
  if not redis.call('ZSCORE', KEYS[3], id) then redis.call('ZADD', KEYS[2], ARGV[2], id) end
  redis.call('HSET', KEYS[1], id, 'a|' .. rest)
end
return 1
`;
