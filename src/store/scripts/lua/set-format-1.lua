--[[
  Move a deployment's data format on by one upgrade step, only from the format the step started from:
  of two processes upgrading at once, one moves it and the other reads the new format and goes on
  from there (data-format.ts). A deployment with data but no format key is format 1.

  Input:
    KEYS[1] format   string: the deployment's data format version

    ARGV[1] from   the format the step upgraded from ('' when no key was written yet: format 1)
    ARGV[2] to     the format it upgraded to

  Output:
    1 when moved, 0 when the stored format is no longer `from` (another process moved it)
]]
local stored = redis.call('GET', KEYS[1])
if (stored or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
