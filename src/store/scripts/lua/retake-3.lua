--[[
  Before a replica adds an occurrence whose claim it took over (a claimant's lease lapsed: it died, or
  it stalled and may wake up and add the same job id again), this decides whether it adds it, and
  makes any later add of the job id checkable at its start (start-runs-1's start marks): the
  occurrence gets an entry in the schedule's start marks, '' while no add of its job started. A record
  of the occurrence past `enqueued` (the lapsed claimant's job started already) leaves the entry '-':
  every add after it is refused at its start, whatever the history keeps.

  Input:
    KEYS[1] taken:<id>   hash: occurrence field -> stamp of the add of its job that started it
    KEYS[2] rec:<id>:<field>   the occurrence's record (includes/record)
    KEYS[3] runs:<id>    hash: the records of an earlier release (read only)

    ARGV[1] occurrence field
    ARGV[2] how long the marks are kept after their last write (ms; the ledger's)

  Output:
    1 an add of its job started (or skipped) it already: add nothing; 0 add it
]]
--- @include "includes/record"

local field = ARGV[1]
local seen = redis.call('HGET', KEYS[1], field)
if seen and seen ~= '' then return 1 end
local outcome = recordFacts(KEYS[3], KEYS[2], field)
local ran = outcome ~= nil and outcome ~= '' and outcome ~= 'enqueued'
if ran then
  redis.call('HSET', KEYS[1], field, '-')
elseif not seen then
  redis.call('HSET', KEYS[1], field, '')
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if ran then return 1 end
return 0
