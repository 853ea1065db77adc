import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import { JobStatus } from '../../src/store/forms/job-status.js';
import { DateTrigger } from '../../src/triggers/date-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

/**
 * Firing. Where a test waits through fire times or a retention, it runs on manual time (the fire
 * loops' clock and Redis's, see manual-time.ts): that time is advanced through, not waited for.
 */
describe('firing', () => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime | undefined;
  afterEach(async () => {
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
  });

  /** Manual time for this test's managers, Redis's clock stopped at its reading now. */
  async function manualTime(): Promise<ManualTime> {
    time = new ManualTime(env.redis, env.prefix);
    await time.start();
    return time;
  }

  it('precision: every(0.1) fires 10 times a second, each grid instant once, never early', async () => {
    env = testEnv('precision');
    const t = await manualTime();
    const m = env.manager();
    t.attach(m);
    m.every(0.1)(async function fast() {});
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    const t0 = t.now();
    await t.advance(2101);
    await t.stop(m);
    // Window [from, to) on the 100 ms grid, judged by Redis time, well inside the run.
    const from = Math.ceil((t0 + 200) / 100) * 100;
    const to = from + 1500;
    const inWindow = fired.filter((e) => e.fireAt >= from && e.fireAt < to).map((e) => e.fireAt);
    expect(inWindow.sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => from + i * 100));
    expect(fired.every((e) => e.lateMs >= 0)).toBe(true);
    const ids = await env.jobIds();
    expect(new Set(ids).size).toBe(ids.length);
    for (const at of inWindow) expect(ids).toContain(occurrenceJobId('fast', at));
  });

  it('a replica whose clock is 5 s fast neither fires early nor twice', async () => {
    env = testEnv('skew');
    const t = await manualTime();
    const fast = env.manager({ clock: () => Date.now() + 5000 });
    const fair = env.manager();
    const fired: FiredEvent[] = [];
    for (const m of [fast, fair]) {
      t.attach(m);
      m.every(0.2)(async function skewed() {});
      m.on('fired', (e) => fired.push(e));
    }
    await fast.start(); // the fast one starts first and alone for a moment
    await t.advanceUntil(() => fired.length >= 2, 5000);
    await fair.start();
    await t.advanceUntil(() => fired.length >= 12, 10_000);
    await t.stopAll();
    const ats = fired.map((e) => e.fireAt);
    expect(new Set(ats).size).toBe(ats.length); // none twice
    expect(fired.every((e) => e.lateMs >= 0)).toBe(true); // none early, by Redis time
    const q = new Queue(env.queue, { connection: { url: REDIS_URL } });
    const jobs = await q.getJobs(['wait', 'active', 'completed', 'delayed']);
    await q.close();
    expect(jobs.length).toBe(ats.length);
    // added at its time, or committed ahead as a delayed job due at its time (timestamp + delay)
    for (const j of jobs)
      expect(j.timestamp + (j.delay ?? 0)).toBeGreaterThanOrEqual((j.data as { fireAt: number }).fireAt - 5);
  });

  it('lifecycle: pause stops firing, resume restarts from the next occurrence, triggerNow runs once as manual', async () => {
    env = testEnv('life');
    const m = env.manager();
    const job = m.every(0.1)(async function life() {});
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await waitUntil(() => fired.length >= 2);
    expect(await m.pause('life')).toBe(true);
    expect(await m.pause('life')).toBe(false);
    const pausedAt = await redisNow(env.redis);
    const n = fired.length;
    await new Promise((r) => setTimeout(r, 400));
    // At most the one claimed while the pause landed.
    expect(fired.filter((e) => e.fireAt > pausedAt).length).toBe(0);
    expect(fired.length).toBeLessThanOrEqual(n + 1);
    expect((await m.get('life'))?.status).toBe(JobStatus.PAUSED);
    expect(job.status).toBe(JobStatus.PAUSED);

    const manual = await m.triggerNow('life');
    expect(manual.jobId).toBe(occurrenceJobId('life', manual.fireAt, true));
    const rec = await internalsOf(m).history.get('life', manual.fireAt, true);
    expect(rec).toMatchObject({ kind: 'manual', outcome: 'enqueued', jobId: manual.jobId });

    const resumedAt = await redisNow(env.redis);
    expect(await m.resume('life')).toBe(true);
    await waitUntil(() => fired.some((e) => e.fireAt > resumedAt));
    // Nothing between the pause and the resume was caught up.
    expect(
      fired.filter((e) => e.kind !== 'manual' && e.fireAt > pausedAt + 100 && e.fireAt <= resumedAt),
    ).toEqual([]);
    const s = await m.stats();
    expect(s).toMatchObject({ jobsTotal: 1, jobsActive: 1, jobsPaused: 0 });
    expect(s.uptime).toBeGreaterThan(0);
    const json = (await m.get('life'))!.toJSON();
    expect(json).toMatchObject({
      id: 'life',
      name: 'life',
      status: 'active',
      trigger: 'IntervalTrigger',
      maxInstances: 1,
      coalesce: true,
    });
    expect(json.lastRunTime).toBeGreaterThan(0);
    expect(json.createdAt).toBeGreaterThan(0);
    expect(json.activeInstances).toBe(0);
    await m.stop();
    const records = await m.history('life');
    // every occurrence fired has its record; on a loaded box an occurrence may also be recorded not run
    // (coalesced behind a late one, say), with its reason, and no fired event
    const ran = records.filter((r) => r.outcome !== 'skipped' && r.outcome !== 'missed');
    expect(ran.map((r) => r.fireAt).sort()).toEqual(fired.map((e) => e.fireAt).sort());
    for (const r of records.filter((r) => !ran.includes(r))) expect(r.reason).toBeDefined();
    expect(records.filter((r) => r.kind === 'manual').length).toBe(1);
  });

  it('a date schedule completes after it fires (a runtime one is pruned after the retention); maxRuns completes too', async () => {
    env = testEnv('complete');
    const t = await manualTime();
    const m = env.manager({ completedRetentionMs: 300 });
    t.attach(m);
    const now = t.now();
    m.schedule(async function once() {}, new DateTrigger(now + 150));
    m.schedule(async function twice() {}, new IntervalTrigger(0.05), { maxRuns: 2 });
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await t.advanceUntil(async () => (await m.get('once'))?.status === JobStatus.COMPLETED, 5000);
    await t.advanceUntil(async () => (await m.get('twice'))?.status === JobStatus.COMPLETED, 5000);
    // committed ahead, a schedule completes when its last occurrence is staged; `fired` comes at its instant
    await t.advanceUntil(() => fired.filter((e) => e.scheduleId !== 'later').length >= 3, 5000);
    expect(fired.filter((e) => e.scheduleId === 'once').map((e) => e.fireAt)).toEqual([now + 150]);
    expect(fired.filter((e) => e.scheduleId === 'twice').length).toBe(2);
    expect((await m.list(JobStatus.COMPLETED)).length).toBe(2);
    // A runtime one-shot is pruned after the retention; a code-defined one is kept while code defines it
    // (so that the next start does not run it again).
    const at = t.now() + 100;
    await m.schedule({ name: 'later' }, new DateTrigger(at), { id: 'runtime-once' }).saved;
    await t.advanceUntil(async () => (await m.get('runtime-once'))?.status === JobStatus.COMPLETED, 5000);
    await t.advanceUntil(async () => (await m.get('runtime-once')) === undefined, 10_000, 100);
    expect((await m.get('once'))?.status).toBe(JobStatus.COMPLETED);
  });

  it('ScheduledJob.run() runs the handler in-process under its middleware, first listed outermost', async () => {
    env = testEnv('run');
    const m = env.manager({ role: 'client' });
    const order: string[] = [];
    const job = m.schedule(
      async function greet(who: string, ctx: { kind: string }) {
        order.push(`fn:${who}:${ctx.kind}`);
        return 42;
      },
      new IntervalTrigger(60),
      {
        args: ['ada'],
        middleware: [
          (handler) => async () => {
            order.push('outer');
            return handler();
          },
          (handler) => async () => {
            order.push('inner');
            return handler();
          },
        ],
      },
    );
    expect(await job.run()).toBe(42);
    expect(order).toEqual(['outer', 'inner', 'fn:ada:manual']);
    expect(job.runs).toBe(1);
    expect(internalsOf(m).handlerFor('greet')?.job).toBe(job);
  });

  it('history stays bounded: about historyLimit records per schedule, the newest kept', async () => {
    env = testEnv('history');
    const t = await manualTime();
    const m = env.manager({ historyLimit: 20 });
    t.attach(m);
    m.every(0.02)(async function busy() {});
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await t.advanceUntil(() => fired.length >= 80, 10_000);
    await t.stop(m);
    const k = `{${env.prefix}}:bb`;
    const fields = (await env.redis.keys(`${k}:rec:busy:*`))
      .map((key) => Number(key.slice(`${k}:rec:busy:`.length)))
      .sort((a, b) => a - b);
    const index = (await env.redis.zrange(`${k}:runidx:busy`, '0', '-1')).map((f) => Number(f));
    // The store's trim rule: over by less than limit / 10 (2 here) before a cut back to 20.
    expect(fields.length).toBeGreaterThanOrEqual(20);
    expect(fields.length).toBeLessThanOrEqual(21);
    expect(index).toEqual(fields);
    const ats = fired.map((e) => e.fireAt).sort((a, b) => a - b);
    expect(fields).toEqual(ats.slice(-fields.length));
    // A period shorter than claimAheadMs (50): every grid instant once, none skipped.
    for (let i = 1; i < ats.length; i++) expect(ats[i]! - ats[i - 1]!).toBe(20);
  });
});
