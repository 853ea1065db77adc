import { describe, expect, it } from 'vitest';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { prefix, queue, env, redis } = cliTestBed('controls');

const stored = (id: string) => redis.hget(`{${prefix}}:bb:schedules`, id);

describe('schedule:update', () => {
  it('changes the trigger and an option, keeps the rest, and prints what changed', async () => {
    const add = await runBullbeat(
      ['schedule:add', '--name', 'export', '--every', '3600', '--queue', queue, '--attempts', '3'],
      { env },
    );
    expect(add.code, add.stderr).toBe(0);
    const run = await runBullbeat(
      ['schedule:update', 'export', '--cron', '0 2 * * *', '--tz', 'Europe/Berlin', '--max-instances', '2'],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^updated export: At 02:00 \(Europe\/Berlin\); jobs "export" on queue/);
    expect(run.stdout).toContain('changed: ');
    const def = JSON.parse((await stored('export'))!);
    expect(def).toMatchObject({
      trigger: { type: 'cron', expression: '0 2 * * *', timezone: 'Europe/Berlin' },
      attempts: 3,
      run: { maxInstances: 2 },
    });
  });

  it('refuses bad input naming the flag (exit 2), a missing id (exit 4); nothing changes', async () => {
    const before = await stored('export');
    const cases: [string[], number, string][] = [
      [['schedule:update', 'export', '--max-instances', '-1'], 2, '--max-instances'],
      [['schedule:update', 'export', '--every', '0'], 2, '--every'],
      [['schedule:update', 'export', '--tz', 'Europe/Paris'], 2, '--tz'],
      [['schedule:update', 'export'], 2, 'nothing to change'],
      [['schedule:update', 'missing', '--attempts', '2'], 4, 'missing'],
    ];
    for (const [args, code, says] of cases) {
      const run = await runBullbeat(args, { env });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(code);
      expect(run.stderr).toContain(says);
    }
    expect(await stored('export')).toBe(before);
  });
});

describe('schedule:pause --note, schedule:resume --policy, schedule:show', () => {
  it('a note is stored with who and when, shown by list and show, dropped on resume', async () => {
    const add = await runBullbeat(['schedule:add', '--name', 'sync', '--every', '0.1', '--queue', queue], {
      env,
    });
    expect(add.code, add.stderr).toBe(0);
    const pause = await runBullbeat(['schedule:pause', 'sync', '--note', 'vendor outage INC-7'], { env });
    expect(pause).toMatchObject({ code: 0, stdout: 'paused sync: "vendor outage INC-7"\n' });
    const note = JSON.parse((await redis.hget(`{${prefix}}:bb:notes`, 'sync'))!);
    expect(note).toMatchObject({ note: 'vendor outage INC-7', by: expect.stringMatching(/^cli:.+@.+$/) });
    const list = await runBullbeat(['schedule:list'], { env });
    expect(list.stdout).toMatch(/paused with a note:\n {2}sync: "vendor outage INC-7" \(by cli:/);
    const show = await runBullbeat(['schedule:show', 'sync'], { env });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^status +paused$/m);
    expect(show.stdout).toMatch(/^paused +"vendor outage INC-7" \(by cli:/m);
    const json = JSON.parse((await runBullbeat(['schedule:show', 'sync', '--json'], { env })).stdout);
    expect(json.pauseNote.note).toBe('vendor outage INC-7');

    await new Promise((r) => setTimeout(r, 400));
    const resume = await runBullbeat(['schedule:resume', 'sync', '--policy', 'once'], { env });
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stdout).toMatch(/^resumed sync; 1 catch-up run enqueued \(policy once\); next run /);
    expect(await redis.hexists(`{${prefix}}:bb:notes`, 'sync')).toBe(0);
    // the records: a hash of facts per occurrence (docs/records.md)
    const recordKeys = await redis.keys(`{${prefix}}:bb:rec:sync:*`);
    const records = await Promise.all(recordKeys.map((key) => redis.hgetall(key)));
    expect(records).toEqual([
      expect.objectContaining({
        kind: 'catch-up',
        outcome: 'enqueued',
        coalesced: expect.stringMatching(/^\d+$/),
      }),
    ]);
  });

  it('refuses a note over 500 characters and an unknown policy, naming them (exit 2); nothing changes', async () => {
    const state = () => redis.hget(`{${prefix}}:bb:state`, 'sync');
    const before = await state();
    const long = await runBullbeat(['schedule:pause', 'sync', '--note', 'x'.repeat(501)], { env });
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('note: must be at most 500 characters');
    expect(await state()).toBe(before);
    await runBullbeat(['schedule:pause', 'sync'], { env });
    const paused = await state();
    const bad = await runBullbeat(['schedule:resume', 'sync', '--policy', 'twice'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('policy: must be one of "skip", "once", "all"');
    const bound = await runBullbeat(['schedule:resume', 'sync', '--policy', 'all', '--max-catch-up', '-3'], {
      env,
    });
    expect(bound.code).toBe(2);
    expect(bound.stderr).toContain('maxCatchUp');
    expect(await state()).toBe(paused);
    const missing = await runBullbeat(['schedule:show', 'nope'], { env });
    expect(missing.code).toBe(4);
  });
});

describe('schedule:add --immediately', () => {
  it('stores the schedule due now (its first run at creation), then on its trigger', async () => {
    const before = Date.now();
    const run = await runBullbeat(
      ['schedule:add', '--name', 'warm-cache', '--cron', '0 4 * * *', '--queue', queue, '--immediately'],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    const due = Number(await redis.zscore(`{${prefix}}:bb:due`, 'warm-cache'));
    expect(due).toBeGreaterThanOrEqual(before - 1000);
    expect(due).toBeLessThanOrEqual(Date.now() + 1000);
    expect(JSON.parse((await stored('warm-cache'))!).immediately).toBe(true);
  });
});
