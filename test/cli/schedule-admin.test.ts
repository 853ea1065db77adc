import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { REDIS } from '../redis-url.js';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { prefix, queue, env } = cliTestBed('admin');

interface Listed {
  id: string;
  name: string;
  status: string;
  queue: string;
  nextRunTime: number | null;
  source: string;
}

const list = async (): Promise<Listed[]> => {
  const run = await runBullbeat(['schedule:list', '--json'], { env });
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Listed[];
};

describe('schedule:add, list, pause, resume, trigger, remove', () => {
  it('an empty prefix lists nothing, exit 0', async () => {
    const run = await runBullbeat(['schedule:list'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`no schedules under prefix "${prefix}"\n`);
    expect(await list()).toEqual([]);
  });

  it('schedule:add --cron with a zone stores a runtime schedule and says when it runs next', async () => {
    const run = await runBullbeat(
      [
        'schedule:add',
        '--name',
        'nightly-export',
        '--cron',
        '0 2 * * *',
        '--tz',
        'Europe/Berlin',
        '--queue',
        queue,
      ],
      { env },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^added nightly-export: At 02:00 \\(Europe/Berlin\\); jobs "nightly-export" on queue "${queue}"; next run \\d{4}-\\d\\d-\\d\\d (00|01):00:00Z\\n$`,
      ),
    );
  });

  it('schedule:add --every and --at, with an id, data and --json', async () => {
    const every = await runBullbeat(
      [
        'schedule:add',
        '--name',
        'ping',
        '--id',
        'ping-a',
        '--every',
        '3600',
        '--queue',
        queue,
        '--data',
        '{"to":"a"}',
        '--json',
      ],
      { env },
    );
    expect(every.code).toBe(0);
    const job = JSON.parse(every.stdout) as Listed & { spec: { type: string; seconds: number } };
    expect(job).toMatchObject({ id: 'ping-a', name: 'ping', queue, status: 'active', source: 'runtime' });
    expect(job.spec).toMatchObject({ type: 'interval', seconds: 3600 });
    const at = Date.now() + 86_400_000;
    const once = await runBullbeat(
      ['schedule:add', '--name', 'remind', '--at', new Date(at).toISOString(), '--queue', queue],
      { env },
    );
    expect(once.code).toBe(0);
    expect(once.stdout).toContain('added remind: Once, at ');
  });

  it('schedule:list prints a table with a row per schedule, sorted by id', async () => {
    const run = await runBullbeat(['schedule:list'], { env });
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+QUEUE\s+STATUS\s+NEXT RUN\s+LAST RUN\s+RUNS\s+ERRORS\s+TRIGGER$/);
    expect(lines.slice(1, 4).map((l) => l.split(/\s+/)[0])).toEqual(['nightly-export', 'ping-a', 'remind']);
    expect(lines[2]).toMatch(/^ping-a\s+ping\s+\S+\s+active\s+.*Every 1 hour$/);
    expect(lines[4]).toBe(`3 schedules under prefix "${prefix}"`);
  });

  it('schedule:pause then schedule:resume; a second pause is a no-op, exit 0', async () => {
    const pause = await runBullbeat(['schedule:pause', 'ping-a'], { env });
    expect(pause).toMatchObject({ code: 0, stdout: 'paused ping-a\n' });
    expect((await list()).find((j) => j.id === 'ping-a')).toMatchObject({
      status: 'paused',
      nextRunTime: null,
    });
    const again = await runBullbeat(['schedule:pause', 'ping-a'], { env });
    expect(again).toMatchObject({ code: 0, stdout: 'ping-a was not active (paused): nothing to do\n' });
    const resume = await runBullbeat(['schedule:resume', 'ping-a'], { env });
    expect(resume.code).toBe(0);
    expect(resume.stdout).toMatch(/^resumed ping-a; next run \d{4}-/);
    const listed = (await list()).find((j) => j.id === 'ping-a');
    expect(listed?.status).toBe('active');
    expect(listed?.nextRunTime).toBeGreaterThan(Date.now());
  });

  it('schedule:trigger enqueues a manual job on the schedule queue with its data', async () => {
    const run = await runBullbeat(['schedule:trigger', 'ping-a'], { env });
    expect(run.code).toBe(0);
    const jobId = /job (\S+) enqueued/.exec(run.stdout)?.[1];
    expect(jobId).toBeDefined();
    const q = new Queue(queue, { connection: REDIS });
    try {
      const job = await q.getJob(jobId as string);
      expect(job?.name).toBe('ping');
      expect(job?.data).toMatchObject({ scheduleId: 'ping-a', kind: 'manual', data: { to: 'a' } });
    } finally {
      await q.close();
    }
  });

  it('schedule:remove removes it; the id is then unknown to every command (exit 4)', async () => {
    const run = await runBullbeat(['schedule:remove', 'ping-a'], { env });
    expect(run).toMatchObject({ code: 0, stdout: 'removed ping-a\n' });
    expect((await list()).map((j) => j.id)).toEqual(['nightly-export', 'remind']);
    for (const command of ['schedule:pause', 'schedule:resume', 'schedule:trigger', 'schedule:remove']) {
      const missing = await runBullbeat([command, 'ping-a'], { env });
      expect(missing.code, command).toBe(4);
      expect(missing.stderr, command).toBe('bullbeat: no schedule with id "ping-a"\n');
      // --json: its document all the same, nothing done
      const json = await runBullbeat([command, 'ping-a', '--json'], { env });
      expect(json.code, command).toBe(4);
      expect(JSON.parse(json.stdout), command).toEqual({
        id: 'ping-a',
        action: command.slice('schedule:'.length),
        done: false,
      });
      expect(json.stderr, command).toBe('bullbeat: no schedule with id "ping-a"\n');
    }
  });

  it.each([
    [['--name', 'x'], '--cron/--every/--at: give exactly one (got none)'],
    [['--name', 'x', '--cron', '* * * * *', '--every', '5'], 'give exactly one (got --cron and --every)'],
    [['--name', 'x', '--cron', '61 * * * *'], 'cron "61 * * * *": minute "61": out of range 0-59'],
    [
      ['--name', 'x', '--every', '-5'],
      `--every: expected a number with a unit (500ms, 30s, 5m, 24h, 7d; a bare number is seconds) (got "-5")`,
    ],
    [['--name', 'x', '--every', '0'], '--every: must be a finite number greater than 0, got 0'],
    [['--name', 'x', '--at', 'tomorrow'], '--at: expected an ISO 8601 instant or epoch ms (got "tomorrow")'],
    [['--name', 'x', '--every', '5', '--data', '{oops'], '--data: expected JSON'],
    [
      ['--name', 'x', '--every', '5', '--tz', 'UTC'],
      '--tz: an --every interval is a duration and has no time zone',
    ],
    [['--name', 'x', '--cron', '0 9 * * *', '--tz', 'Nowhere/City'], 'Nowhere/City'],
    [['--every', '5'], "required option '--name <name>' not specified"],
    [
      ['--name', 'x', '--every', '0x10'],
      `--every: expected a number with a unit (500ms, 30s, 5m, 24h, 7d; a bare number is seconds) (got "0x10")`,
    ],
    [['--name', 'x', '--every', '1_000'], '--every: expected a number with a unit'],
    [['--name', 'x', '--every', '0b11'], '--every: expected a number with a unit'],
    [['--name', 'x', '--every', '60', '--attempts', '0o7'], '--attempts: "0o7" is not a decimal number'],
    [['--name', 'x', '--every', '60', '--jitter', '0x1'], '--jitter: expected a number with a unit'],
  ])('schedule:add %j: exit 2, "%s"', async (args, message) => {
    const run = await runBullbeat(['schedule:add', ...args], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain('    at ');
  });
});
