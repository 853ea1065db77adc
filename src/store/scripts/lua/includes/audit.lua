--[[
  A schedule's audit trail, one entry per change, written by the script that makes the change (no
  change without its entry, no entry without its change). Its entry id is Redis's clock (ms-sequence):
  the time of the change. Every entry carries `op`, `actor` and `source`, and `onBehalfOf` when the
  caller named one, then the change's own fields (audit-entry.ts is the one reader). The newest
  `limit` entries are kept (exact XADD MAXLEN: a control path, at most a few writes a second); `limit`
  0 writes none.

  Two forms (data format 2):
  - A trail of one `create` entry (an idle schedule's) is one field of its partition's first-entry
    hash `audit-first:<b>` (b: the first 8 hex digits of SHA-1(id), modulo 64; `keys.auditFirst`):
    `<id>` -> `<ms, base 36>|<source letter><actor>`. Its entry id is `<ms>-0`; its `after` is not
    copied: it is the definition stored under `schedules`, which no change alters without writing the
    trail's next entry first (the change settles the first entry before it writes the definition).
    Kept so only when it fits a listpack hash (id and value at most 64 bytes), with no `onBehalfOf`,
    by a known source, and no trail before it; otherwise the entry goes to the stream.
  - Any other trail is a stream, `audit:<id>`. The second entry moves the first into the stream
    (`settleAudit`), then is appended.
  A stream's first entry: Redis readies its node for `stream-node-max-bytes` (4 KB); a new stream is
  written again at its size (DUMP, RESTORE); where the ACL denies either command it stays as written.

  Each script that writes one takes the same four ARGV in a row (`audit` names the first of them):
    limit       entries kept per schedule (0 = no trail)
    actor       who authenticated: `dashboard:<user>`, `api:<token name>`, `cli:<user>@<host>`,
                `code`, `bullbeat`
    source      dashboard | api | cli | code | runtime
    onBehalfOf  whom the caller says it acts for ('' = nobody named): a claim, never the actor
  and passes the schedule's key `audit:<id>` (KEYS) and its id: the first-entry hash and the
  definitions hash are `<base>:audit-first:<b>` and `<base>:schedules`, `<base>` the part of the key
  before `:audit:<id>` (same partition, same slot).
]]
local AUDIT_BUCKETS = 64
local AUDIT_LISTPACK_MAX = 64
local AUDIT_SOURCE_LETTER = { dashboard = 'd', api = 'a', cli = 'l', code = 'c', runtime = 'r' }
local AUDIT_LETTER_SOURCE = { d = 'dashboard', a = 'api', l = 'cli', c = 'code', r = 'runtime' }
local AUDIT_DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz'

-- The partition's base, and the first-entry hash of schedule `id`, from its trail's key.
local function auditKeys(key, id)
  local base = string.sub(key, 1, #key - #id - 7)
  local b = tonumber(string.sub(redis.sha1hex(id), 1, 8), 16) % AUDIT_BUCKETS
  return base, base .. ':audit-first:' .. b
end

local function auditBase36(n)
  local s = ''
  repeat
    local d = n % 36
    s = string.sub(AUDIT_DIGITS, d + 1, d + 1) .. s
    n = (n - d) / 36
  until n == 0
  return s
end

-- A new stream written again at its size (see above).
local function auditShrink(key)
  local dump = redis.pcall('DUMP', key)
  if type(dump) == 'string' then redis.pcall('RESTORE', key, '0', dump, 'REPLACE') end
end

-- `ms-seq` as two numbers.
local function auditId(id)
  local dash = string.find(id, '-', 1, true)
  return tonumber(string.sub(id, 1, dash - 1)), tonumber(string.sub(id, dash + 1))
end

--[[
  Move schedule `id`'s first entry, if it is kept in the first-entry hash, into its stream, before
  any change to its definition and before its trail's next entry. Its `after` is the definition
  stored now, or, when a stream was written beside it (an earlier release appends to the stream
  alone), the `before` of that stream's oldest entry that has one. A first entry with neither, and
  no stream, belongs to a removed schedule whose trail has expired: it goes. The stream keeps its
  expiry.
]]
local function settleAudit(key, id)
  local base, first = auditKeys(key, id)
  local v = redis.call('HGET', first, id)
  if not v then return end
  redis.call('HDEL', first, id)
  local bar = string.find(v, '|', 1, true)
  local ms = tonumber(string.sub(v, 1, bar - 1), 36)
  local source = AUDIT_LETTER_SOURCE[string.sub(v, bar + 1, bar + 1)] or ''
  local actor = string.sub(v, bar + 2)
  local entries = redis.call('XRANGE', key, '-', '+')
  local def
  for _, e in ipairs(entries) do
    local f = e[2]
    for i = 1, #f - 1, 2 do
      if f[i] == 'before' then
        def = f[i + 1]
        break
      end
    end
    if def then break end
  end
  if not def then def = redis.call('HGET', base .. ':schedules', id) end
  if not def and #entries == 0 then return end
  local ttl = redis.call('PTTL', key)
  if #entries > 0 then redis.call('DEL', key) end
  local args = { 'XADD', key, ms .. '-0', 'op', 'create', 'actor', actor, 'source', source }
  if def then
    args[#args + 1] = 'after'
    args[#args + 1] = def
  end
  redis.call(unpack(args))
  -- the stream's entries after it, each under its id (one not above the last: the next id after it)
  local lastMs, lastSeq = ms, 0
  for _, e in ipairs(entries) do
    local m, s = auditId(e[1])
    if m < lastMs or (m == lastMs and s <= lastSeq) then m, s = lastMs, lastSeq + 1 end
    redis.call('XADD', key, m .. '-' .. s, unpack(e[2]))
    lastMs, lastSeq = m, s
  end
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
  auditShrink(key)
end

local function appendAudit(key, id, limit, actor, source, onBehalfOf, op, fields)
  local n = tonumber(limit) or 0
  if n <= 0 then return end
  settleAudit(key, id)
  local fresh = redis.call('EXISTS', key) == 0
  local letter = AUDIT_SOURCE_LETTER[source]
  if fresh and op == 'create' and letter and (onBehalfOf == nil or onBehalfOf == '')
    and #fields == 2 and fields[1] == 'after' and #id <= AUDIT_LISTPACK_MAX then
    local t = redis.call('TIME')
    local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    local value = auditBase36(ms) .. '|' .. letter .. actor
    if #value <= AUDIT_LISTPACK_MAX then
      local _, first = auditKeys(key, id)
      redis.call('HSET', first, id, value)
      return
    end
  end
  local args = { 'XADD', key, 'MAXLEN', tostring(n), '*', 'op', op, 'actor', actor, 'source', source }
  if onBehalfOf ~= nil and onBehalfOf ~= '' then
    args[#args + 1] = 'onBehalfOf'
    args[#args + 1] = onBehalfOf
  end
  for i = 1, #fields do args[#args + 1] = fields[i] end
  redis.call(unpack(args))
  if fresh then auditShrink(key) end
end

--[[
  The upgrade from data format 1 (compact-audit-3): a schedule's stream that holds only its `create`
  (as format 1 wrote every trail's first entry: `op`, `actor`, `source`, `after`, id `<ms>-0`), for a
  live schedule (no expiry) whose stored definition is that `after`, is moved into the first-entry
  hash in the form `appendAudit` writes, when that form can hold it. Returns 1 moved, 0 left as it is.
]]
local function compactAudit(key, id)
  if redis.call('PTTL', key) ~= -1 or redis.call('XLEN', key) ~= 1 or #id > AUDIT_LISTPACK_MAX then return 0 end
  local base, first = auditKeys(key, id)
  if redis.call('HEXISTS', first, id) == 1 then return 0 end
  local e = redis.call('XRANGE', key, '-', '+')[1]
  local ms, seq = auditId(e[1])
  local flat, f = e[2], {}
  for i = 1, #flat - 1, 2 do f[flat[i]] = flat[i + 1] end
  local letter = AUDIT_SOURCE_LETTER[f.source or '']
  if seq ~= 0 or #flat ~= 8 or f.op ~= 'create' or not letter or not f.actor or not f.after then return 0 end
  if f.after ~= redis.call('HGET', base .. ':schedules', id) then return 0 end
  local value = auditBase36(ms) .. '|' .. letter .. f.actor
  if #value > AUDIT_LISTPACK_MAX then return 0 end
  redis.call('HSET', first, id, value)
  redis.call('DEL', key)
  return 1
end

-- The entry of a script whose four audit ARGV start at index `at`.
local function audit(key, id, at, op, fields)
  appendAudit(key, id, ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], op, fields)
end
