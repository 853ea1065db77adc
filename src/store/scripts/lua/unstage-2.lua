--[[
  Remove a schedule's occurrences staged in BullMQ (delayed jobs added ahead of their fire time), or
  only its occurrence at one fire time. Atomic with BullMQ's promotion (a script too): a staged job
  still in `delayed` is removed (job hash, logs, a `removed` event, as BullMQ's own removal writes);
  one promoted already is not touched (it was due: it runs). A staged job is recognised by its id
  (`<prefix><fireAt>`) and its place: scored at the fire time its id names plus the schedule's spread
  offset, or later and never taken by a worker (the fire-rate cap delayed it); a retry waiting for its
  backoff (scored later, taken before: `processedOn`) is left alone. BullMQ scores a delayed job at `ms * 4096 + counter`.

  Input:
    KEYS[1] delayed     zset: BullMQ's delayed jobs of the queue
    KEYS[2] events      stream: BullMQ's events of the queue

    ARGV[1] the queue's key prefix (`bull:<queue>:`): a job's hash is `<ARGV[1]><job id>`
    ARGV[2] the job id prefix of the schedule's occurrences (`bb-<id>-`)
    ARGV[3] window (ms): staged jobs due up to now + window are looked at
    ARGV[4] one fire time only ('' = every one)
    ARGV[5] the schedule's spread offset (ms): a staged job is scored at its fire time plus this

  One occurrence (ARGV[4]) is looked up by its job id; every one is searched for in the window (a scan
  of the queue's delayed jobs due within it).

  Output:
    the fire times removed
]]
--- @include "includes/now"

local now = redisNow()
local from, to = now * 4096, (now + tonumber(ARGV[3]) + 1) * 4096 - 1
local prefix, n, out = ARGV[2], #ARGV[2], {}

-- The job `id` (the schedule's, its fire time `rest`) scored `score`: removed when it is staged.
local function consider(id, rest, score)
  local planned = string.match(rest, '^%d+$') and tonumber(rest) + tonumber(ARGV[5])
  local at = math.floor(tonumber(score) / 4096)
  -- at its planned instant; or later, delayed by the fire-rate cap, and never taken by a worker (a
  -- retry waiting for its backoff, or a run waiting for its slot, was: it has `processedOn`)
  local staged = planned and (at == planned
    or (at > planned and redis.call('HEXISTS', ARGV[1] .. id, 'processedOn') == 0))
  if staged then
    redis.call('ZREM', KEYS[1], id)
    redis.call('DEL', ARGV[1] .. id, ARGV[1] .. id .. ':logs')
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', 10000, '*', 'event', 'removed', 'jobId', id, 'prev', 'delayed')
    out[#out + 1] = rest
  end
end

if ARGV[4] ~= '' then
  -- one occurrence: its job id is known, so it is looked up, not searched for among the queue's
  local id = prefix .. ARGV[4]
  local score = tonumber(redis.call('ZSCORE', KEYS[1], id))
  if score and score >= from and score <= to then consider(id, ARGV[4], score) end
  return out
end
local members = redis.call('ZRANGEBYSCORE', KEYS[1], from, to, 'WITHSCORES')
for i = 1, #members, 2 do
  local id = members[i]
  if string.sub(id, 1, n) == prefix then consider(id, string.sub(id, n + 1), members[i + 1]) end
end
return out
