import { Queue } from 'bullmq';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { REDIS, REDIS_URL } from '../redis-url.js';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { prefix, queue, env, redis } = cliTestBed('backfill');
const HOUR = 3_600_000;
let m: SchedulerManager;
let to: number;

const jobIds = async (): Promise<string[]> => {
  const q = new Queue(queue, { connection: REDIS });
  const jobs = await q.getJobs(['wait', 'active', 'completed', 'failed', 'delayed']);
  await q.close();
  return jobs.map((j) => j.id as string).sort();
};

beforeAll(async () => {
  m = new SchedulerManager({
    prefix,
    role: 'client',
    defaultQueue: queue,
    connection: REDIS_URL,
    logger: pino({ level: 'silent' }),
  });
  await m.schedule({ name: 'nightly' }, new CronTrigger('30 2 * * *', { timezone: 'America/New_York' }), {
    id: 'nightly',
  }).saved;
  await m.pause('nightly');
  await m.schedule({ name: 'hourly' }, new IntervalTrigger(3600), { id: 'hourly' }).saved;
  await m.pause('hourly');
  const [seconds] = await redis.time();
  to = Math.floor((Number(seconds) * 1000) / HOUR) * HOUR;
});

afterAll(async () => {
  await m.close();
});

describe('schedule:backfill', () => {
  it('--dry-run prints each instant in UTC and in the zone (DST included) and enqueues nothing', async () => {
    const run = await runBullbeat(
      [
        'schedule:backfill',
        'nightly',
        '--from',
        '2026-03-07T00:00:00Z',
        '--to',
        '2026-03-09T07:00:00Z',
        '--dry-run',
      ],
      { env },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'nightly: 3 occurrences in [2026-03-07T00:00:00.000Z, 2026-03-09T07:00:00.000Z), shown in UTC and America/New_York',
        '',
        '    1  2026-03-07T07:30:00.000Z  Sat 2026-03-07 02:30:00 EST (-05:00)  to enqueue',
        '    2  2026-03-08T07:00:00.000Z  Sun 2026-03-08 03:00:00 EDT (-04:00)  to enqueue',
        '    3  2026-03-09T06:30:00.000Z  Mon 2026-03-09 02:30:00 EDT (-04:00)  to enqueue',
        '',
        'dry run: 3 to enqueue, 0 not to run; nothing enqueued',
        '',
      ].join('\n'),
    );
    expect(await jobIds()).toEqual([]);
  });

  it('enqueues with plain progress lines when stdout is not a terminal; a second run enqueues none', async () => {
    const args = ['schedule:backfill', 'hourly', '--from', String(to - 3 * HOUR), '--to', String(to)];
    const run = await runBullbeat(args, { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`    1  ${new Date(to - 3 * HOUR).toISOString()}`);
    expect(run.stdout).toMatch(/enqueued 3\/3\ndone: 3 enqueued \(kind backfill\), 0 not run\n$/);
    expect(run.stdout).not.toContain('\r');
    expect(await jobIds()).toEqual([3, 2, 1].map((i) => `bb-hourly-b${to - i * HOUR}`).sort());
    const again = await runBullbeat([...args, '--json'], { env });
    expect(again.code).toBe(0);
    const json = JSON.parse(again.stdout);
    expect(json).toMatchObject({ scheduleId: 'hourly', enqueued: 0, skipped: 3 });
    expect(json.occurrences.map((o: { status: string }) => o.status)).toEqual([
      'backfilled',
      'backfilled',
      'backfilled',
    ]);
  });

  it('draws a progress bar on a terminal', async () => {
    let out = '';
    let err = '';
    const code = await runCli(
      [
        'schedule:backfill',
        'hourly',
        '--from',
        String(to - 6 * HOUR),
        '--to',
        String(to - 3 * HOUR),
        '--rate',
        '20',
      ],
      {
        stdout: (t) => {
          out += t;
        },
        stderr: (t) => {
          err += t;
        },
        env: { REDIS_URL, BULLBEAT_PREFIX: prefix, LOG_LEVEL: 'silent' },
        cwd: process.cwd(),
        stdoutIsTTY: true,
        now: () => Date.now(),
      },
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('\r[####################..........] 2/3 enqueued');
    expect(out).toContain('\r[##############################] 3/3 enqueued\n');
  });

  it('bad flags: exit 2 naming the flag, nothing enqueued; an unknown id: exit 4', async () => {
    const before = await jobIds();
    const cases: [string[], RegExp][] = [
      [['--from', String(to), '--to', String(to - HOUR)], /^bullbeat: --to: must be after from/],
      [['--from', 'soon', '--to', String(to)], /^bullbeat: --from: cannot read "soon"/],
      [['--from', '0', '--to', String(to)], /^bullbeat: --to: the range holds more than 10000 occurrences/],
      [
        ['--from', String(to - HOUR), '--to', String(to), '--rate', 'fast'],
        /^bullbeat: --rate: "fast" is not a decimal number/,
      ],
      [
        ['--from', String(to - HOUR), '--to', String(to), '--max', '0'],
        /^bullbeat: --max: must be a whole number from 1/,
      ],
      [
        ['--from', String(to - HOUR), '--to', String(to), '--rate', '0x10'],
        /^bullbeat: --rate: "0x10" is not a decimal number/,
      ],
      [['--from', String(to - HOUR)], /required option '--to <instant>'/],
      // the schedule's overlap vocabulary (skip is one of it now): a word outside it is refused
      [['--from', String(to - HOUR), '--to', String(to), '--overlap', 'sometimes'], /--overlap/],
    ];
    for (const [flags, message] of cases) {
      const run = await runBullbeat(['schedule:backfill', 'hourly', ...flags], { env });
      expect(run.code, flags.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    const unknown = await runBullbeat(
      ['schedule:backfill', 'nope', '--from', String(to - HOUR), '--to', String(to)],
      {
        env,
      },
    );
    expect(unknown.code).toBe(4);
    expect(await jobIds()).toEqual(before);
  });
});

describe('schedule:add --except', () => {
  it('stores the exclusions in the trigger and lists them in words', async () => {
    const add = await runBullbeat(
      [
        'schedule:add',
        '--name',
        'noon',
        '--queue',
        queue,
        '--cron',
        '0 12 * * *',
        '--tz',
        'Europe/Paris',
        '--except',
        '2099-12-25',
        '--except',
        '* * * * 0,6',
        '--json',
      ],
      { env },
    );
    // at most the note that no live worker handles it yet
    expect(add.stderr).toMatch(/^(bullbeat: jobs ".*" on queue ".*": no bullbeat worker is alive.*\n)?$/);
    expect(add.code).toBe(0);
    const job = await m.get('noon');
    expect(job?.def.trigger).toEqual({
      type: 'except',
      trigger: { type: 'cron', expression: '0 12 * * *', timezone: 'Europe/Paris' },
      except: ['2099-12-25', '* * * * 0,6'],
    });
    const list = await runBullbeat(['schedule:list'], { env });
    expect(list.stdout).toContain(
      'At 12:00 (Europe/Paris); except (Europe/Paris): 2099-12-25; minutes matching "* * * * 0,6"',
    );
  });

  it('a bad --except: exit 2 naming the flag and the entry, nothing stored', async () => {
    const cases: [string, RegExp][] = [
      ['2026-02-30', /^bullbeat: --except "2026-02-30": "2026-02-30" is not a real date/],
      [
        '61 * * * *',
        /^bullbeat: --except "61 \* \* \* \*": cron "61 \* \* \* \*": minute "61": out of range 0-59/,
      ],
      ['* * * * *', /^bullbeat: --except: excludes every occurrence/],
      [
        '2026-12-01..9999-12-31',
        /^bullbeat: --except "2026-12-01\.\.9999-12-31": "2026-12-01\.\.9999-12-31" reaches 9999/,
      ],
      ['9999-01-01', /^bullbeat: --except "9999-01-01": "9999-01-01" reaches 9999/],
    ];
    for (const [entry, message] of cases) {
      const run = await runBullbeat(
        ['schedule:add', '--name', 'bad-except', '--queue', queue, '--every', '60', '--except', entry],
        { env },
      );
      expect(run.code, entry).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    expect(await m.get('bad-except')).toBeUndefined();
  });
});
