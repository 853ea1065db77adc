import { describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { REDIS_URL } from '../redis-url.js';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { prefix, queue, env, redis } = cliTestBed('add');

/** The stored definition of a schedule, as the scheduler reads it. */
const stored = async (id: string) => {
  const text = await redis.hget(`{${prefix}}:bb:schedules`, id);
  return text === null
    ? null
    : (JSON.parse(text) as Record<string, unknown> & { run: Record<string, unknown> });
};

describe('schedule:add safety', () => {
  it('an existing id is not replaced without --replace: exit 2, it says what is there, nothing changes', async () => {
    const first = await runBullbeat(['schedule:add', '--name', 'ping', '--every', '3600', '--queue', queue], {
      env,
    });
    expect(first.code).toBe(0);
    const again = await runBullbeat(['schedule:add', '--name', 'ping', '--every', '60', '--queue', queue], {
      env,
    });
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      'bullbeat: --name: a schedule "ping" (the id defaults to --name) already exists (Every 1 hour, queue "' +
        `${queue}"): pass --replace to overwrite it, or --id to add another\n`,
    );
    expect((await stored('ping'))?.trigger).toMatchObject({ type: 'interval', seconds: 3600 });
  });

  it('--replace overwrites it and prints what changed', async () => {
    const run = await runBullbeat(
      ['schedule:add', '--name', 'ping', '--every', '60', '--queue', queue, '--attempts', '3', '--replace'],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^replaced ping: Every 1 minute;/);
    expect(run.stdout).toContain('changed: trigger Every 1 hour -> Every 1 minute; attempts 1 -> 3\n');
    expect((await stored('ping'))?.trigger).toMatchObject({ type: 'interval', seconds: 60 });
  });

  it('--replace with nothing different says so', async () => {
    const run = await runBullbeat(
      ['schedule:add', '--name', 'ping', '--every', '60', '--queue', queue, '--attempts', '3', '--replace'],
      { env },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('changed: nothing\n');
  });

  it('--replace never overwrites a schedule defined in code: exit 2, naming the id and source: code', async () => {
    const code = new SchedulerManager({ prefix, role: 'client', connection: REDIS_URL, defaultQueue: queue });
    code.every(3600, { id: 'coded' })(async function coded() {});
    await code.start();
    await code.close();
    const was = await stored('coded');
    const run = await runBullbeat(
      ['schedule:add', '--name', 'coded', '--every', '60', '--queue', queue, '--replace'],
      { env },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'bullbeat: --name: schedule "coded" is defined in code (source: code): it is never replaced from outside; change it in the jobs module\n',
    );
    expect(await stored('coded')).toEqual(was);
  });

  it('--at in the past is refused unless --allow-past, which runs it once now', async () => {
    const past = '2019-03-01T09:00:00Z';
    const refused = await runBullbeat(['schedule:add', '--name', 'late', '--at', past, '--queue', queue], {
      env,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^bullbeat: --at: 2019-03-01T09:00:00\.000Z is in the past \(by \d+ days\): pass --allow-past to run it once, now\n$/,
    );
    expect(await stored('late')).toBeNull();
    const allowed = await runBullbeat(
      ['schedule:add', '--name', 'late', '--at', past, '--queue', queue, '--allow-past'],
      { env },
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(await stored('late')).not.toBeNull();
  });

  it('--misfire and --timeout-ms are stored on the schedule', async () => {
    const run = await runBullbeat(
      [
        'schedule:add',
        '--name',
        'sync',
        '--cron',
        '*/5 * * * *',
        '--misfire',
        'skip',
        '--timeout-ms',
        '5000',
        '--queue',
        queue,
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('misfire skip, timeout 5000 ms');
    const def = await stored('sync');
    expect(def?.misfire).toBe('skip');
    expect(def?.run.timeoutMs).toBe(5000);
  });

  it.each([
    [['--misfire', 'later'], "bullbeat: option '--misfire <policy>' argument 'later' is invalid"],
    [['--timeout-ms', '0'], '--timeout-ms: must be an integer >= 1, got 0'],
    [['--tz', 'Europe/Paris'], '--tz: an --every interval is a duration and has no time zone'],
  ])('%j is refused with a clear message, exit 2', async (flags, message) => {
    const run = await runBullbeat(['schedule:add', '--name', 'bad', '--every', '60', ...flags], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(await stored('bad')).toBeNull();
  });
});
