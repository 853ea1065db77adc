--[[
  A run record of an earlier release (JSON under the occurrence field of `runs:<id>`), read by the
  scripts that judge an occurrence by its outcome and job id (includes/record's recordFacts,
  start-runs): never written, never decoded.
]]

-- An earlier release's record (JSON in `runs:<id>`): its outcome and job id, read without decoding
-- (cjson writes `"name":"value"`); nil when there is none.
local function oldFacts(runs, field)
  local old = redis.call('HGET', runs, field)
  if not old then return nil end
  return string.match(old, '"outcome":"([^"]*)"') or '', string.match(old, '"jobId":"([^"]*)"')
end
