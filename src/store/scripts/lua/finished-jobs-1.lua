--[[
  Read a queue's BullMQ event stream after an entry, as `XREAD` would, and answer only what the
  foreign outcome follower records: each `completed` / `failed` event of an occurrence's job (its id
  starts with ARGV[4]) with its job hash's outcome fields, read in the same call. A run leaves ~5
  entries in the stream (added, waiting, active, completed, ...); the follower is sent a few values
  for its one finished event instead of decoding them all and asking for the job's fields apart.

  Input:
    KEYS[1] events      stream: BullMQ's events of the queue

    ARGV[1] the queue's key prefix (`bull:<queue>:`): a job's hash is `<ARGV[1]><job id>`
    ARGV[2] read the entries after this id
    ARGV[3] count: entries read at most
    ARGV[4] the job id prefix of occurrences (`bb-`)

  Output:
    { the id of the last entry read (ARGV[2] when none), how many entries were read,
      then per finished occurrence job, in stream order, 8 values:
        job id, 'completed' | 'failed', the event's failedReason (false when none),
        the job hash's processedOn, finishedOn, atm, attemptsMade, failedReason (false when absent) }
]]
local entries = redis.call('XRANGE', KEYS[1], '(' .. ARGV[2], '+', 'COUNT', tonumber(ARGV[3]))
local prefix, n = ARGV[4], #ARGV[4]
local out = { ARGV[2], #entries }
-- The event's `jobId` and `failedReason`, when it is a finished one (BullMQ writes `event` first).
local function finished(f)
  local event = f[2]
  if f[1] ~= 'event' then
    for i = 1, #f - 1, 2 do if f[i] == 'event' then event = f[i + 1] end end
  end
  if event ~= 'completed' and event ~= 'failed' then return nil end
  local jobId, reason = nil, false
  for i = 1, #f - 1, 2 do
    local name = f[i]
    if name == 'jobId' then jobId = f[i + 1]
    elseif name == 'failedReason' and event == 'failed' then reason = f[i + 1] end
  end
  return jobId, event, reason
end

for _, entry in ipairs(entries) do
  local jobId, event, reason = finished(entry[2])
  if jobId and string.sub(jobId, 1, n) == prefix then
    local job = redis.call('HMGET', ARGV[1] .. jobId, 'processedOn', 'finishedOn', 'atm', 'attemptsMade',
      'failedReason')
    out[#out + 1] = jobId
    out[#out + 1] = event
    out[#out + 1] = reason
    for i = 1, 5 do out[#out + 1] = job[i] end
  end
end
if #entries > 0 then out[1] = entries[#entries][1] end
return out
