--[[
  The one trim rule of a schedule's run history (`runidx:<id>` zset of occurrence fields by fire time;
  each record a hash `rec:<id>:<field>`, or, written by an earlier release, JSON under the field of the
  `runs:<id>` hash): it keeps its newest `limit` records. The index may run over by less than
  slack = max(1, floor(limit / 10)) before it is cut back to exactly `limit` (oldest first), so a busy
  schedule pays the cut once every `slack` writes, not at each. Readers list the newest `limit`.
  Every script that adds a record to the index calls trimHistory after it (writeRecord, includes/record:
  only a new entry can take the history over its bound), but for start-runs: a run's start calls it at
  every slack-th run started of the schedule (its fencing token a multiple of slack), whether or not its
  own record was new, so that the records only starts add (a run started before its `enqueued` record
  was written) take the index over by less than 2 slack, and a start pays the check once every slack
  runs.
  `recBase` is `<base>:rec:<id>:` (a record's key is it and the occurrence field).
]]
local function trimSlack(limit)
  return math.max(1, math.floor(limit / 10))
end

local function trimHistory(runs, idx, recBase, limit)
  local slack = trimSlack(limit)
  local excess = redis.call('ZCARD', idx) - limit
  if excess >= slack then
    local old = redis.call('ZRANGE', idx, 0, excess - 1)
    redis.call('ZREMRANGEBYRANK', idx, 0, excess - 1)
    redis.call('HDEL', runs, unpack(old))
    local recs = {}
    for i, f in ipairs(old) do recs[i] = recBase .. f end
    redis.call('DEL', unpack(recs))
  end
end

-- Whether a new record at `score` would be among the newest `limit` (and so survive the trim).
local function historyKeeps(idx, score, limit)
  local n = redis.call('ZCARD', idx)
  if n < limit then return true end
  local edge = redis.call('ZRANGE', idx, n - limit, n - limit, 'WITHSCORES')
  return edge[2] == nil or score > tonumber(edge[2])
end
