import { describe, expect, it } from 'vitest';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { prefix, queue, env, redis } = cliTestBed('overlap');

describe('schedule:add --overlap --pause-on-failure', () => {
  it('stores both on the schedule and prints them', async () => {
    const run = await runBullbeat(
      [
        'schedule:add',
        '--name',
        'sync',
        '--every',
        '60',
        '--overlap',
        'bufferOne',
        '--pause-on-failure',
        '3',
        '--queue',
        queue,
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('overlap bufferOne, pause after 3 failures');
    const def = JSON.parse((await redis.hget(`{${prefix}}:bb:schedules`, 'sync')) as string);
    expect(def.run).toMatchObject({ overlap: 'bufferOne', pauseOnFailure: 3 });
  });

  it.each([
    [
      ['--overlap', 'queueAll'],
      '--overlap: must be one of "skip", "bufferOne", "bufferAll", "cancelOther", "allowAll", got "queueAll"',
    ],
    [['--overlap', 'skip', '--max-instances', '0'], '--overlap: "skip" contradicts maxInstances 0'],
    [['--pause-on-failure', '0'], '--pause-on-failure: must be an integer >= 1, got 0'],
  ])('%j is refused naming the flag; nothing is stored', async (flags, message) => {
    const run = await runBullbeat(
      ['schedule:add', '--name', 'bad', '--every', '60', '--queue', queue, ...flags],
      {
        env,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(await redis.hexists(`{${prefix}}:bb:schedules`, 'bad')).toBe(0);
  });
});
