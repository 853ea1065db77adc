// Records an earlier release left (JSON under the occurrence field of `runs:<id>`) still read, through
// every reader: the history (get, list), the dashboard's reader and API, why (API, function, CLI).
// One of them was finished by this release's worker (a hash of facts over the old JSON): both merge.
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { whyDidntItRun } from '../../src/insight/why.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { RunSlots } from '../../src/store/runs/run-slots.js';
import { startTestDashboard, type TestDashboard } from '../dashboard/harness.js';
import { REDIS_URL } from '../redis-url.js';

let t: TestDashboard;
afterEach(async () => {
  await t.cleanup();
});

describe('run records written by an earlier release', () => {
  it('read through every reader, alone and under facts this release wrote over them', async () => {
    t = await startTestDashboard();
    const created = await t.api('POST', '/api/schedules', {
      name: 'old',
      queue: t.queue,
      trigger: { type: 'cron', expression: '* * * * *' },
    });
    expect(created.status).toBe(201);
    const m = t.scheduler;
    const k = internalsOf(m).keys;
    const [ran, open] = [1_699_999_980_000, 1_700_000_040_000]; // two minutes of 2023
    // the shape the earlier release's scripts wrote (cjson of the merged record)
    const oldRan = {
      scheduleId: 'old',
      fireAt: ran,
      kind: 'scheduled',
      outcome: 'succeeded',
      enqueuedAt: ran + 3,
      queue: t.queue,
      jobId: `bb-old-${ran}`,
      replica: 'host-a:11',
      claimedAt: ran - 40,
      startedAt: ran + 9,
      finishedAt: ran + 30,
      attempts: 2,
      worker: 'host-b:22',
      fencingToken: 7,
      previousAttempts: [{ attempt: 1, outcome: 'failed', error: 'boom', endedAt: ran + 5 }],
    };
    const oldOpen = {
      scheduleId: 'old',
      fireAt: open,
      kind: 'scheduled',
      outcome: 'enqueued',
      enqueuedAt: open + 2,
      queue: t.queue,
      jobId: `bb-old-${open}`,
    };
    await internalsOf(m).redis.hset(
      k.runs('old'),
      String(ran),
      JSON.stringify(oldRan),
      String(open),
      JSON.stringify(oldOpen),
    );
    await internalsOf(m).redis.zadd(k.runIndex('old'), ran, String(ran), open, String(open));

    // this release's worker runs the occurrence the earlier release enqueued
    const slots = new RunSlots(internalsOf(m).redis, k, 30_000, 100);
    const run = { scheduleId: 'old', fireAt: open, manual: false as const };
    const ids = { leaseId: 'l1', jobId: `bb-old-${open}`, firstDelivery: true };
    const started = await slots.start(
      run,
      { mode: 'skip', cap: 1 },
      ids,
      { outcome: 'running', startedAt: 0, attempts: 1, worker: 'host-c:33' },
      { outcome: 'skipped', finishedAt: 0 },
    );
    expect(started.status).toBe('started');
    const token = started.status === 'started' ? started.fencingToken : 0;
    const noPause = { afterFailures: 0, note: '', at: 0 };
    await slots.finish(run, 'l1', token, { outcome: 'succeeded', finishedAt: 1 }, ['runs'], 'ok', noPause);

    const expectRan = { ...oldRan };
    const expectOpen = {
      ...oldOpen,
      outcome: 'succeeded',
      attempts: 1,
      worker: 'host-c:33',
      fencingToken: token,
    };
    // the history
    expect(await m.history.get('old', ran)).toEqual(expectRan);
    const opened = await m.history.get('old', open);
    expect(opened).toMatchObject(expectOpen);
    expect(opened?.finishedAt).toBeGreaterThanOrEqual(opened?.startedAt ?? Number.POSITIVE_INFINITY);
    const list = await m.history('old');
    expect(list.map((r) => [r.fireAt, r.outcome])).toEqual([
      [open, 'succeeded'],
      [ran, 'succeeded'],
    ]);
    expect(list[1]).toEqual(expectRan);

    // the dashboard's API: the runs, and the schedule's view (its last outcome, from the reader)
    const runs = await t.api('GET', '/api/schedules/old/runs');
    expect(runs.status).toBe(200);
    expect(runs.body.items[1]).toMatchObject({ ...expectRan, duration: 21 });
    expect(runs.body.items[0]).toMatchObject(expectOpen);
    const view = await t.api('GET', '/api/schedules/old');
    expect(view.body.lastOutcome).toBe('succeeded');

    // why: the function, the API and the CLI
    const why = await whyDidntItRun(m, 'old', { at: ran });
    expect(why).toMatchObject({ ran: true, fireAt: ran, record: expectRan });
    const api = await t.api('GET', `/api/schedules/old/why?at=${new Date(ran).toISOString()}`);
    expect(api.body).toMatchObject({ ran: true, fireAt: ran });
    let out = '';
    const code = await runCli(['schedule:why', 'old', '--at', new Date(ran).toISOString(), '--json'], {
      stdout: (s) => {
        out += s;
      },
      stderr: () => {},
      env: { REDIS_URL, BULLBEAT_PREFIX: t.prefix },
      cwd: process.cwd(),
      stdoutIsTTY: false,
      now: () => Date.now(),
    });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({
      ran: true,
      fireAt: ran,
      record: { worker: 'host-b:22', attempts: 2 },
    });

    // removing the schedule deletes both forms
    await m.remove('old');
    const left = await internalsOf(m).redis.exists(
      k.runs('old'),
      k.runIndex('old'),
      k.record('old', String(open)),
    );
    expect(left).toBe(0);
  });
});
