--[[
  A schedule's audit trail: a stream (`audit:<id>`), one entry per change, written by the script that
  makes the change (no change without its entry, no entry without its change). Its entry id is Redis's
  clock (ms-sequence): the time of the change. Every entry carries `op`, `actor` and `source`, and
  `onBehalfOf` when the caller named one, then the change's own fields (audit-entry.ts is the one
  reader). The newest `limit` entries are kept (exact
  XADD MAXLEN: a control path, at most a few writes a second); `limit` 0 writes none.

  Each script that writes one takes the same four ARGV in a row (`audit` names the first of them):
    limit       entries kept per schedule (0 = no trail)
    actor       who authenticated: `dashboard:<user>`, `api:<token name>`, `cli:<user>@<host>`,
                `code`, `bullbeat`
    source      dashboard | api | cli | code | runtime
    onBehalfOf  whom the caller says it acts for ('' = nobody named): a claim, never the actor
]]
local function appendAudit(key, limit, actor, source, onBehalfOf, op, fields)
  local n = tonumber(limit) or 0
  if n <= 0 then return end
  local args = { 'XADD', key, 'MAXLEN', tostring(n), '*', 'op', op, 'actor', actor, 'source', source }
  if onBehalfOf ~= nil and onBehalfOf ~= '' then
    args[#args + 1] = 'onBehalfOf'
    args[#args + 1] = onBehalfOf
  end
  for i = 1, #fields do args[#args + 1] = fields[i] end
  local fresh = redis.call('EXISTS', key) == 0
  redis.call(unpack(args))
  -- A stream's first entry: Redis readies its node for `stream-node-max-bytes` (4 KB), which an idle
  -- schedule would keep for good (its trail holds one `create`: 4.7 KB of its ~5 KB). Written again at
  -- its size (DUMP, RESTORE: ~700 B); later entries grow the node as they come. Where the ACL denies
  -- either command, the trail stays as written.
  if fresh then
    local dump = redis.pcall('DUMP', key)
    if type(dump) == 'string' then redis.pcall('RESTORE', key, '0', dump, 'REPLACE') end
  end
end

-- The entry of a script whose four audit ARGV start at index `at`.
local function audit(key, at, op, fields)
  appendAudit(key, ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], op, fields)
end
