--[[
  Which of some BullMQ jobs no worker took yet, read in one step: backpressure's look-up of each
  claimed schedule's previous job (its hash: BullMQ sets `timestamp` when it adds a job and
  `processedOn` when a worker takes it). One call per queue for a whole claim batch, in place of one
  `HMGET` per job.

  Variable key count (the `-n` in the file name): the caller passes numkeys = the number of jobs.
  Input:
    then per item j (0-based), its job:
    KEYS[1 + 1j]  job   hash: a BullMQ job (`<prefix>:<queue>:<id>`; all of one queue, one slot)

  Output:
    { per job, in order: its `timestamp` when it has one and no `processedOn`, else '' (gone, never
      written, or started) }
]]

local out = {}
for i = 1, #KEYS do
  local job = redis.call('HMGET', KEYS[i], 'timestamp', 'processedOn')
  if job[1] and not job[2] then out[i] = job[1] else out[i] = '' end
end
return out
