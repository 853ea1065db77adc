--[[
  The one trim rule of a schedule's run history (`runs:<id>` hash, `runidx:<id>` zset by fire time):
  it keeps its newest `limit` records. The index may run over by less than
  slack = max(1, floor(limit / 10)) before it is cut back to exactly `limit` (oldest first), so a busy
  schedule pays the cut once every `slack` writes, not at each. Readers list the newest `limit`.
  Every script that adds a record calls trimHistory after it.
]]
local function trimHistory(runs, idx, limit)
  local slack = math.max(1, math.floor(limit / 10))
  local excess = redis.call('ZCARD', idx) - limit
  if excess >= slack then
    local old = redis.call('ZRANGE', idx, 0, excess - 1)
    redis.call('ZREMRANGEBYRANK', idx, 0, excess - 1)
    redis.call('HDEL', runs, unpack(old))
  end
end

-- Whether a new record at `score` would be among the newest `limit` (and so survive the trim).
local function historyKeeps(idx, score, limit)
  local n = redis.call('ZCARD', idx)
  if n < limit then return true end
  local edge = redis.call('ZRANGE', idx, n - limit, n - limit, 'WITHSCORES')
  return edge[2] == nil or score > tonumber(edge[2])
end
