--[[
  Judge the occurrences a backfill would enqueue (reads only). An occurrence runs from a backfill only
  when nothing ran it or will: not one the schedule's own firing still has ahead (at or after its
  claimed or due time), not in the future, not one whose scheduled record shows it enqueued or run
  (a `missed` or `skipped` record does not count: a backfill is how those are run after all), and
  not one a backfill already enqueued (the ledger, or a `b<time>` record: a worker wrote one for a job
  whose backfill stopped before its mark).

  Input:
    KEYS[1] runs:<id>       hash: occurrence field -> run record JSON
    KEYS[2] backfills:<id>  zset: the backfill ledger (fire time -> fire time)
    KEYS[3] due             zset: schedule id -> next due time
    KEYS[4] claim           hash: schedule id -> `fireAt|token`
    KEYS[5] schedules       hash: schedule id -> definition

    ARGV[1] schedule id
    ARGV[2..] fire times (epoch ms), ascending

  Output:
    { -1 } when the schedule does not exist; else { now, code per fire time }: 0 to run, 1 its
    scheduled record shows it enqueued or run, 2 a backfill enqueued it (ledger or record), 3 the schedule's own firing
    has it ahead, 4 in the future (after Redis `TIME`)
]]
--- @include "includes/now"
--- @include "includes/claim"

local id = ARGV[1]
if redis.call('HEXISTS', KEYS[5], id) == 0 then return { -1 } end
local now = redisNow()
local ahead = claimedFireAt(KEYS[4], id) or tonumber(redis.call('ZSCORE', KEYS[3], id) or '')
local out = { now }
for i = 2, #ARGV do
  local t = tonumber(ARGV[i])
  local code = 0
  if ahead and t >= ahead then
    code = 3
  elseif t > now then
    code = 4
  elseif redis.call('ZSCORE', KEYS[2], ARGV[i]) or redis.call('HEXISTS', KEYS[1], 'b' .. ARGV[i]) == 1 then
    code = 2
  else
    local rec = redis.call('HGET', KEYS[1], ARGV[i])
    if rec then
      local ok, r = pcall(cjson.decode, rec)
      local outcome = ok and type(r) == 'table' and r.outcome or nil
      if outcome and outcome ~= 'missed' and outcome ~= 'skipped' then code = 1 end
    end
  end
  out[#out + 1] = code
end
return out
