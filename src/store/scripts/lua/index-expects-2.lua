--[[
  Index the expectations of definitions written before the expectations index existed (once per
  partition, by the expectations watch's read): each id whose definition, read now, has `expect` goes
  into the index (includes/expects), then the partition is marked indexed. Idempotent: an id already
  indexed is indexed the same; one removed or changed meanwhile is read as it is now (remove-13 and
  upsert-9 keep the index themselves).

  Input:
    KEYS[1] schedules        hash: id -> definition JSON (its base names the expectations index)
    KEYS[2] expectsIndexed   string: set to '1' when ARGV[1] is '1'

    ARGV[1] last: '1' when these are the partition's last ids (the partition is then marked indexed)
    ARGV[2..] the ids to index

  Output:
    how many of the ids expect something
]]
--- @include "includes/expects"

local base = expectBase(KEYS[1])
local n = 0
for i = 2, #ARGV do
  local expects = storedExpects(redis.call('HGET', KEYS[1], ARGV[i]))
  reindexExpects(base, ARGV[i], expects)
  if expects then n = n + 1 end
end
if ARGV[1] == '1' then redis.call('SET', KEYS[2], '1') end -- KEYS[2] is markExpectsIndexed's key
return n
