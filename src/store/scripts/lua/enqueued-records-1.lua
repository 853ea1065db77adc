--[[
  The records still `enqueued` among the newest `depth` of each schedule of a batch (all of one
  partition), read for the outcome follower's reconciliation: it looks up the BullMQ job of each. The
  filtering is done here, so that a catch-up over the whole kept history of thousands of schedules
  (a plain Worker found on a queue, a scheduler restarted) sends back only the records it may have to
  write, not every record's facts. Read only.

  A record's facts are its hash's (`rec:<id>:<field>`, includes/record), and, for a fact the hash
  lacks, the JSON record an earlier release left under the field of `runs:<id>` (readers lay the
  hash's facts over it, as record-reads.ts does).

  Each schedule's keys are built from the partition's key base, as keys.ts names them (the same
  exception as foreign-outcomes-2: every key is in the partition's slot).

  Input:
    KEYS[1] schedules  hash: id -> definition JSON (the partition's; names its slot)

    ARGV[1] base   the partition's key base (`{tag}:bb`)
    ARGV[2] depth  how many of each schedule's newest records are looked at
    then per schedule: its id

  Output:
    per record still `enqueued` with a queue and a job id, newest first within its schedule:
    { the schedule's place in ARGV (1 = the first id), field, queue, job id, enqueuedAt ('' unknown),
      kind ('' unknown), ... }
]]

local base, depth = ARGV[1], tonumber(ARGV[2])
local FACTS = { 'outcome', 'queue', 'jobId', 'enqueuedAt', 'kind' }
local out = {}
for i = 3, #ARGV do
  local id = ARGV[i]
  local fields = redis.call('ZREVRANGE', base .. ':runidx:' .. id, 0, depth - 1)
  local recBase = base .. ':rec:' .. id .. ':'
  for _, field in ipairs(fields) do
    local f = redis.call('HMGET', recBase .. field, unpack(FACTS))
    if not (f[1] and f[2] and f[3] and f[4] and f[5]) then
      -- an earlier release's record under it: the facts the hash lacks are its
      local old = redis.call('HGET', base .. ':runs:' .. id, field)
      local ok, r = pcall(cjson.decode, old or '')
      if ok and type(r) == 'table' then
        for j, name in ipairs(FACTS) do
          local v = r[name]
          if not f[j] and type(v) == 'string' then f[j] = v end
          if not f[j] and type(v) == 'number' then f[j] = string.format('%.0f', v) end
        end
      end
    end
    if f[1] == 'enqueued' and f[2] and f[2] ~= '' and f[3] and f[3] ~= '' then
      out[#out + 1] = i - 2
      out[#out + 1] = field
      out[#out + 1] = f[2]
      out[#out + 1] = f[3]
      out[#out + 1] = f[4] or ''
      out[#out + 1] = f[5] or ''
    end
  end
end
return out
