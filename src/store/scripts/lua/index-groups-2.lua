--[[
  Index the groups of definitions written before the group index existed (once per partition, by the
  groups' read): each id's group, read from its definition now, goes into the index (includes/groups),
  then the partition is marked indexed. Idempotent: an id already indexed is indexed the same; one
  removed meanwhile has no definition and is left out (remove-13 took it out of the index).

  Input:
    KEYS[1] schedules       hash: id -> definition JSON (its base names the group index's keys)
    KEYS[2] groupsIndexed   string: set to '1' when ARGV[1] is '1'

    ARGV[1] last: '1' when these are the partition's last ids (the partition is then marked indexed)
    ARGV[2..] the ids to index

  Output:
    how many of the ids name a group
]]
--- @include "includes/groups"

local base = groupBase(KEYS[1])
local n = 0
for i = 2, #ARGV do
  local g = storedGroup(redis.call('HGET', KEYS[1], ARGV[i]))
  if g then
    reindexGroup(base, ARGV[i], nil, g)
    n = n + 1
  end
end
if ARGV[1] == '1' then redis.call('SET', KEYS[2], '1') end -- KEYS[2] is markGroupsIndexed's key
return n
