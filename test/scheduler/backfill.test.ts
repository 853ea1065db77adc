import { Queue } from 'bullmq';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { CronParser } from '../../src/cron/cron-parser.js';
import { ScheduleNotFoundError, ScheduleOptionsError } from '../../src/errors/index.js';
import { createWorker, type WorkerHandle } from '../../src/queue/index.js';
import type { BackfillOverlap, BackfillProgress } from '../../src/scheduler/contract/backfill-options.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import { OVERLAP_POLICIES, type OverlapPolicy } from '../../src/store/forms/overlap-policy.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, silent, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

const HOUR = 3_600_000;

describe('backfill', () => {
  let env: ReturnType<typeof testEnv>;
  let worker: WorkerHandle | undefined;
  let time: ManualTime | undefined;
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
  });

  /**
   * The end of backfill `p` paced on `time`'s clock (its `hooks.clock`): the clock moves on only while
   * the backfill waits for its pace, to the instant it waits for, so each batch goes at its planned
   * time to the millisecond. `before` is awaited before each move (a pause asked for meanwhile lands
   * first).
   */
  async function paced<T>(time: ManualTime, p: Promise<T>, before?: () => unknown): Promise<T> {
    let done = false;
    p.then(
      () => (done = true),
      () => (done = true),
    );
    for (;;) {
      await waitUntil(() => done || time.clock.nextAt !== undefined, 10_000, { stepMs: 1 });
      if (done) return p;
      await before?.();
      await time.clock.advance((time.clock.nextAt as number) - time.clock.now());
    }
  }

  /**
   * A client manager on a manual clock (manual-time.ts): the span a schedule stays paused is Redis's
   * clock, as its scripts read it, moved on by the test, not slept through.
   */
  async function onManualTime(tag: string, options: { historyLimit?: number } = {}) {
    env = testEnv(tag);
    const t = new ManualTime(env.redis, env.prefix);
    time = t;
    await t.start();
    const m = env.manager({ role: 'client', ...options });
    t.attach(m);
    return { m, time: t };
  }

  it('a dry run lists the occurrences of [from, to) by the trigger, zone and DST included, and enqueues nothing', async () => {
    env = testEnv('bf-dry');
    const m = env.manager({ role: 'client' });
    // 02:30 in New York: the spring-forward day 2026-03-08 has no 02:30 (a fixed time: shifted to 03:00)
    const job = m.schedule(
      { name: 'nightly' },
      new CronTrigger('30 2 * * *', { timezone: 'America/New_York' }),
      { id: 'nightly' },
    );
    await job.saved;
    await m.pause('nightly');
    const from = Date.parse('2026-03-06T00:00:00Z');
    const to = Date.parse('2026-03-10T06:30:00Z'); // exclusive: 2026-03-10 02:30 EDT = 06:30Z is out
    const r = await m.backfill('nightly', { from, to, dryRun: true });
    const parser = new CronParser('30 2 * * *', { timezone: 'America/New_York' });
    expect(r.occurrences.map((o) => o.fireAt)).toEqual(parser.nextN(4, from - 1));
    expect(r.occurrences.map((o) => new Date(o.fireAt).toISOString())).toEqual([
      '2026-03-06T07:30:00.000Z',
      '2026-03-07T07:30:00.000Z',
      '2026-03-08T07:00:00.000Z', // 03:00 EDT, the first valid instant after the gap
      '2026-03-09T06:30:00.000Z',
    ]);
    expect(r.occurrences.every((o) => o.status === 'to-enqueue')).toBe(true);
    expect(r).toMatchObject({ dryRun: true, enqueued: 4, skipped: 0, timezone: 'America/New_York' });
    expect(await env.jobIds()).toEqual([]);
    expect(await m.history('nightly')).toEqual([]);
    // [from, to): an occurrence exactly at `to` is left out, one exactly at `from` is in
    const edge = await m.backfill('nightly', {
      from: '2026-03-06T07:30:00Z',
      to: '2026-03-07T07:30:00Z',
      dryRun: true,
    });
    expect(edge.occurrences.map((o) => o.fireAt)).toEqual([Date.parse('2026-03-06T07:30:00Z')]);
  });

  it('enqueues each occurrence once under its own job id, recorded as backfill; a second backfill of the range enqueues nothing', async () => {
    const { m, time } = await onManualTime('bf-run');
    const job = m.schedule({ name: 'hourly' }, new IntervalTrigger(3600), { id: 'hourly' });
    await job.saved;
    await m.pause('hourly');
    const now = await redisNow(env.redis);
    const to = Math.floor(now / HOUR) * HOUR; // the last hour boundary, excluded
    const from = to - 5 * HOUR;
    const progress: BackfillProgress[] = [];
    const events: BackfillProgress[] = [];
    m.on('backfill', (p) => events.push(p));
    const r = await paced(
      time,
      m.backfill('hourly', {
        from,
        to,
        ratePerSecond: 20,
        onProgress: (p) => progress.push(p),
      }),
    );
    const instants = [0, 1, 2, 3, 4].map((i) => from + i * HOUR);
    expect(r.occurrences).toEqual(
      instants.map((t) => ({
        fireAt: t,
        status: 'enqueued',
        jobId: occurrenceJobId('hourly', t, 'backfill'),
      })),
    );
    expect((await env.jobIds()).sort()).toEqual(instants.map((t) => `bb-hourly-b${t}`).sort());
    expect(progress.at(-1)).toEqual({ scheduleId: 'hourly', enqueued: 5, total: 5, done: true });
    expect(progress.map((p) => p.enqueued)).toEqual([2, 4, 5]); // batches of a tenth of the rate
    expect(events).toEqual(progress);
    const records = await m.history('hourly');
    expect(records).toHaveLength(5);
    for (const rec of records) {
      expect(rec).toMatchObject({ kind: 'backfill', outcome: 'enqueued', queue: env.queue });
      expect(rec.jobId).toBe(occurrenceJobId('hourly', rec.fireAt, 'backfill'));
    }
    const again = await m.backfill('hourly', { from, to });
    expect(again.enqueued).toBe(0);
    expect(again.occurrences.map((o) => o.status)).toEqual(Array(5).fill('backfilled'));
    expect(await env.jobIds()).toHaveLength(5);
  });

  it('pausing the schedule stops its running backfill: what it enqueued runs, the rest is given back, the result says paused', async () => {
    const { m, time } = await onManualTime('bf-pause');
    // active while backfilled: the occurrences before its creation are the fire loop's to none
    await m.schedule({ name: 'm' }, new IntervalTrigger(60), { id: 'm' }).saved;
    const created = (await m.get('m'))!.createdAt as number;
    const from = created - 100 * 60_000;
    const progress: BackfillProgress[] = [];
    let pausing: Promise<unknown> | undefined;
    const r = await paced(
      time,
      m.backfill('m', {
        from,
        to: created,
        ratePerSecond: 20,
        onProgress: (p) => {
          progress.push(p);
          if (p.enqueued >= 6) pausing ??= m.pause('m', { note: 'stop the backfill' });
        },
      }),
      () => pausing,
    );
    await pausing;
    expect(r.stopped).toBe('paused');
    const enqueued = r.occurrences.filter((o) => o.status === 'enqueued');
    const stopped = r.occurrences.filter((o) => o.status === 'stopped');
    expect(r.enqueued).toBe(enqueued.length);
    // at most the batch in flight when the pause landed went after it (batches of 2)
    expect(r.enqueued).toBeGreaterThanOrEqual(6);
    expect(r.enqueued).toBeLessThanOrEqual(10);
    expect(stopped.length).toBeGreaterThan(80);
    expect(stopped.every((o) => o.jobId === undefined)).toBe(true);
    expect(r.enqueued + stopped.length).toBe(r.occurrences.length);
    expect(progress.at(-1)).toMatchObject({ done: true, stopped: 'paused', enqueued: r.enqueued });
    // what was enqueued stays enqueued; nothing of the rest was, and nothing owes it
    expect((await env.jobIds()).sort()).toEqual(enqueued.map((o) => o.jobId).sort());
    expect(await env.redis.zcard(internalsOf(m).keys.partition(0).owedRuns)).toBe(0);
    // given back to the ledger: a later backfill may take them (and only them)
    const again = await m.backfill('m', { from, to: created, dryRun: true });
    const toEnqueue = again.occurrences.filter((o) => o.status === 'to-enqueue').map((o) => o.fireAt);
    expect(toEnqueue).toEqual(stopped.map((o) => o.fireAt));
  });

  it('a backfill of a schedule paused before it began is not stopped by that pause', async () => {
    const { m, time } = await onManualTime('bf-prepaused');
    await m.schedule({ name: 'm' }, new IntervalTrigger(60), { id: 'm' }).saved;
    await m.pause('m');
    const created = (await m.get('m'))!.createdAt as number;
    const r = await paced(
      time,
      m.backfill('m', { from: created - 30 * 60_000, to: created, ratePerSecond: 100 }),
    );
    expect(r.stopped).toBeUndefined();
    expect(r.enqueued).toBe(30);
    expect(await env.jobIds()).toHaveLength(30);
  });

  it('an occurrence already enqueued or run is not run again; a missed or skipped one is', async () => {
    env = testEnv('bf-ran');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'h' }, new IntervalTrigger(3600), { id: 'h' }).saved;
    await m.pause('h');
    const to = Math.floor((await redisNow(env.redis)) / HOUR) * HOUR;
    const from = to - 4 * HOUR;
    const [a, b, c, d] = [0, 1, 2, 3].map((i) => from + i * HOUR) as [number, number, number, number];
    await internalsOf(m).history.merge('h', a, false, { kind: 'scheduled', outcome: 'succeeded' });
    await internalsOf(m).history.merge('h', b, false, {
      kind: 'scheduled',
      outcome: 'missed',
      reason: 'misfire',
    });
    await internalsOf(m).history.merge('h', c, false, { kind: 'scheduled', outcome: 'enqueued' });
    await internalsOf(m).history.merge('h', d, false, {
      kind: 'scheduled',
      outcome: 'skipped',
      reason: 'overlap',
    });
    const r = await m.backfill('h', { from, to });
    expect(r.occurrences.map((o) => o.status)).toEqual(['ran', 'enqueued', 'ran', 'enqueued']);
    expect((await env.jobIds()).sort()).toEqual([`bb-h-b${b}`, `bb-h-b${d}`].sort());
    // the scheduled records are untouched: the backfill's are beside them (b<time>)
    expect(await m.history.get('h', b)).toMatchObject({ kind: 'scheduled', outcome: 'missed' });
    expect(await internalsOf(m).history.get('h', b, 'backfill')).toMatchObject({
      kind: 'backfill',
      outcome: 'enqueued',
    });
  });

  it('a backfill that stopped after its addBulk, before its mark: the record a worker wrote still guards it', async () => {
    env = testEnv('bf-unmarked');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'h' }, new IntervalTrigger(3600), { id: 'h' }).saved;
    await m.pause('h');
    const to = Math.floor((await redisNow(env.redis)) / HOUR) * HOUR;
    // its job ran and is gone from BullMQ; only the worker's record says so (no ledger entry)
    await internalsOf(m).history.merge('h', to - HOUR, 'backfill', {
      kind: 'backfill',
      outcome: 'succeeded',
    });
    const r = await m.backfill('h', { from: to - 2 * HOUR, to });
    expect(r.occurrences.map((o) => o.status)).toEqual(['enqueued', 'backfilled']);
    expect(await env.jobIds()).toEqual([`bb-h-b${to - 2 * HOUR}`]);
  });

  it('an active schedule: occurrences its own firing has ahead, and future ones, are listed but not enqueued', async () => {
    env = testEnv('bf-active');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'a' }, new IntervalTrigger(3600), { id: 'a' }).saved;
    const now = await redisNow(env.redis);
    const due = Math.floor(now / HOUR) * HOUR + HOUR; // the next hour: in `due`
    const r = await m.backfill('a', { from: due - 2 * HOUR, to: due + 2 * HOUR });
    expect(r.occurrences.map((o) => [o.fireAt, o.status])).toEqual([
      [due - 2 * HOUR, 'enqueued'],
      [due - HOUR, 'enqueued'],
      [due, 'scheduled'], // at the schedule's due time, which is also after now
      [due + HOUR, 'scheduled'],
    ]);
    expect(await env.jobIds()).toHaveLength(2);
  });

  it('a jittered schedule backfills its planned (un-jittered) instants; exclusions are honoured', async () => {
    env = testEnv('bf-jitter');
    const m = env.manager({ role: 'client' });
    await m.cron('0 12 * * *', { jitter: 600, id: 'noon', except: ['2026-05-02', '* * * * 0'] })(
      async function noon() {},
    );
    await m.start(); // a client: it saves the code's schedules and fires nothing
    const r = await m.backfill('noon', {
      from: '2026-05-01T00:00:00Z',
      to: '2026-05-06T00:00:00Z',
      dryRun: true,
    });
    // 2026-05-02 excluded by date, 2026-05-03 is a Sunday
    expect(r.occurrences.map((o) => new Date(o.fireAt).toISOString())).toEqual([
      '2026-05-01T12:00:00.000Z',
      '2026-05-04T12:00:00.000Z',
      '2026-05-05T12:00:00.000Z',
    ]);
  });

  it('two processes backfilling the same range at once run each occurrence once (real workers)', async () => {
    env = testEnv('bf-race');
    const a = env.manager({ role: 'client' });
    const b = env.manager({ role: 'client' });
    const ran: number[] = [];
    for (const m of [a, b]) {
      m.schedule(
        async function raced(ctx: { fireAt: number; kind: string }) {
          if (ctx.kind === 'backfill') ran.push(ctx.fireAt);
        },
        new IntervalTrigger(60),
        { id: 'raced', maxInstances: 0, coalesce: false },
      );
    }
    await a.start();
    await a.pause('raced');
    worker = await createWorker(a, { logger: silent, concurrency: 5 });
    const to = Math.floor((await redisNow(env.redis)) / 60_000) * 60_000;
    const from = to - 30 * 60_000;
    const [ra, rb] = await Promise.all([
      a.backfill('raced', { from, to, ratePerSecond: 200 }),
      b.backfill('raced', { from, to, ratePerSecond: 200 }),
    ]);
    expect(ra.occurrences).toHaveLength(30);
    expect(rb.occurrences).toHaveLength(30);
    await waitUntil(() => ran.length >= 30, 20_000);
    // nothing left to run: every job on the queue has run (a duplicate job would have run by then too)
    const queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
    await waitUntil(async () => {
      const c = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized');
      return Object.values(c).every((n) => n === 0);
    });
    await queue.close();
    expect(ran.sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => from + i * 60_000));
    expect(await env.jobIds()).toHaveLength(30);
    const recent = await internalsOf(a).history.get('raced', to - 60_000, 'backfill');
    expect(recent).toMatchObject({ kind: 'backfill', outcome: 'succeeded' });
    // and later, once every job is done, a third backfill still runs none (the ledger)
    const again = await b.backfill('raced', { from, to });
    expect(again.enqueued).toBe(0);
  });

  /** Fire time of each occurrence job on the queue (scheduled, catch-up and backfilled lanes alike). */
  const fireTimesOf = (ids: string[]) => ids.map((id) => Number(/-b?(\d+)$/.exec(id)?.[1]));

  it('a backfill of a paused range, then resume(all): each occurrence is enqueued once (one ledger)', async () => {
    const { m, time } = await onManualTime('bf-resume');
    await m.schedule({ name: 'p' }, new IntervalTrigger(0.1), { id: 'p', overlap: 'allowAll' }).saved;
    await m.pause('p');
    const pausedAt = (await m.get('p'))!.pauseNote!.at;
    await time.advance(600);
    const bf = await m.backfill('p', { from: pausedAt, to: time.now(), ratePerSecond: 1000 });
    expect(bf.enqueued).toBeGreaterThanOrEqual(4);
    await time.advance(300);
    expect(await m.resume('p', { policy: 'all' })).toBe(true);
    const times = fireTimesOf(await env.jobIds());
    // every backfilled occurrence once, and the catch-up ran only those after them
    expect(times.length).toBeGreaterThan(bf.enqueued);
    expect(new Set(times).size).toBe(times.length);
    expect(await env.redis.zcard(internalsOf(m).keys.partition(0).owedRuns)).toBe(0); // nothing left owed
  });

  it('resume(once) after a backfill of part of the paused span: its run stands only for what the backfill left', async () => {
    const { m, time } = await onManualTime('bf-once');
    await m.schedule({ name: 'o' }, new IntervalTrigger(0.1), { id: 'o' }).saved;
    await m.pause('o');
    const pausedAt = (await m.get('o'))!.pauseNote!.at;
    await time.advance(600);
    const mid = time.now();
    const bf = await m.backfill('o', { from: pausedAt, to: mid, ratePerSecond: 1000 });
    await time.advance(400);
    expect(await m.resume('o', { policy: 'once' })).toBe(true);
    const [run] = (await m.history('o')).filter((r) => r.kind === 'catch-up');
    expect(run!.fireAt).toBeGreaterThan(mid);
    // missed: from the pause's own instant on (an occurrence on it is in the pause), as the backfill counts
    const missedAll = (run!.fireAt - Math.ceil(pausedAt / 100) * 100) / 100 + 1;
    expect(run!.coalesced).toBe(missedAll - bf.enqueued);
  });

  it('a backfill that stops after judging (its process died): a scheduler replica enqueues what it took', async () => {
    env = testEnv('bf-crash');
    const crashed = env.manager({ role: 'client', claimLeaseMs: 400 });
    await crashed.schedule({ name: 'k' }, new IntervalTrigger(3600), { id: 'k' }).saved;
    await crashed.pause('k');
    const to = Math.floor((await redisNow(env.redis)) / HOUR) * HOUR;
    internalsOf(crashed).queue = () => ({ addBulk: () => new Promise(() => {}) }) as never;
    const { result } = await crashed.startBackfill('k', { from: to - 3 * HOUR, to });
    expect(result.enqueued).toBe(3);
    expect(await env.jobIds()).toEqual([]);
    const replica = env.manager({ claimLeaseMs: 400 });
    await replica.start();
    await waitUntil(async () => (await env.jobIds()).length >= 3, 10_000);
    expect((await env.jobIds()).sort()).toEqual(result.occurrences.map((o) => o.jobId).sort());
    await waitUntil(async () => (await replica.history('k')).length === 3);
    for (const rec of await replica.history('k'))
      expect(rec).toMatchObject({ kind: 'backfill', outcome: 'enqueued' });
    expect(await env.redis.zcard(internalsOf(replica).keys.partition(0).owedRuns)).toBe(0);
    // and it stays backfilled: a new backfill runs none of them
    expect((await replica.backfill('k', { from: to - 3 * HOUR, to })).enqueued).toBe(0);
  });

  it('remove strikes what a dead backfill left owed: a schedule re-created under its id inherits nothing', async () => {
    env = testEnv('bf-removed');
    const crashed = env.manager({ role: 'client', claimLeaseMs: 400 });
    await crashed.schedule({ name: 'g' }, new IntervalTrigger(3600), { id: 'g' }).saved;
    await crashed.pause('g');
    const to = Math.floor((await redisNow(env.redis)) / HOUR) * HOUR;
    // its adds never return (the process died there): they stay owed; the queue stays hung to the end
    // (the background enqueue asks for it after startBackfill returns)
    const realQueue = internalsOf(crashed).queue.bind(crashed);
    internalsOf(crashed).queue = ((name: string) =>
      new Proxy(realQueue(name), {
        get: (target, key) => {
          if (key === 'addBulk') return () => new Promise(() => {});
          const v = Reflect.get(target, key);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      })) as never;
    await crashed.startBackfill('g', { from: to - 2 * HOUR, to });
    expect(await env.redis.zcard(internalsOf(crashed).keys.partition(0).owedRuns)).toBe(2);
    expect(await crashed.remove('g')).toBe(true);
    expect(await env.redis.zcard(internalsOf(crashed).keys.partition(0).owedRuns)).toBe(0);
  });

  it('resume(all), then a backfill of the same span: none again, though the records were trimmed', async () => {
    const { m, time } = await onManualTime('bf-after-resume', { historyLimit: 2 });
    await m.schedule({ name: 'r' }, new IntervalTrigger(0.1), { id: 'r', overlap: 'allowAll' }).saved;
    await m.pause('r');
    const pausedAt = (await m.get('r'))!.pauseNote!.at;
    await time.advance(600);
    expect(await m.resume('r', { policy: 'all' })).toBe(true);
    const caughtUp = (await env.jobIds()).length;
    expect(caughtUp).toBeGreaterThanOrEqual(5);
    const lastCaughtUp = Math.max(...fireTimesOf(await env.jobIds()));
    await m.pause('r');
    const r = await m.backfill('r', { from: pausedAt, to: lastCaughtUp + 1 });
    expect(r.enqueued).toBe(0);
    expect(await env.jobIds()).toHaveLength(caughtUp);
    // remove forgets the ledger and the paused spans with the schedule
    expect(
      await env.redis.exists(internalsOf(m).keys.backfills('r'), internalsOf(m).keys.pausedSpans('r')),
    ).toBe(2);
    await m.remove('r');
    expect(
      await env.redis.exists(internalsOf(m).keys.backfills('r'), internalsOf(m).keys.pausedSpans('r')),
    ).toBe(0);
  });

  it('the occurrence at the pause instant is in the pause: resume(all) runs it, a backfill after does not', async () => {
    // Every millisecond is an occurrence, so one falls on the pause note's `at` itself. The paused span
    // a backfill judges starts there (inclusive); the catch-up once started just after it, and the
    // backfill then ran that one occurrence (1 in ~100 runs of the test above, with a 100 ms period).
    env = testEnv('bf-pause-instant');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'p' }, new IntervalTrigger(0.001), { id: 'p', overlap: 'allowAll' }).saved;
    await m.pause('p');
    const pausedAt = (await m.get('p'))!.pauseNote!.at;
    expect(await m.resume('p', { policy: 'all', maxCatchUp: 10_000 })).toBe(true);
    const caughtUp = fireTimesOf(await env.jobIds());
    expect(caughtUp).toContain(pausedAt);
    expect(Math.min(...caughtUp)).toBe(pausedAt);
    await m.pause('p');
    const r = await m.backfill('p', { from: pausedAt, to: Math.max(...caughtUp) + 1 });
    expect(r.enqueued).toBe(0);
    expect(await env.jobIds()).toHaveLength(caughtUp.length);
  });

  it('occurrences that ran and whose records were trimmed are not run again; a paused span after them is', async () => {
    env = testEnv('bf-trimmed');
    // on a manual clock: the fire loop's 30 runs and the paused span after them are time moved on
    const t = new ManualTime(env.redis, env.prefix);
    time = t;
    await t.start();
    const m = env.manager({ historyLimit: 10, claimAheadMs: 0 });
    t.attach(m);
    await m.schedule({ name: 't' }, new IntervalTrigger(0.1), { id: 't' }).saved;
    const createdAt = t.now();
    await m.start();
    await t.advanceUntil(async () => ((await m.get('t'))?.fired ?? 0) >= 30, 20_000, 50);
    await m.pause('t');
    await t.stop(m);
    t.attach(m); // its next use connects again: that client on the manual clock too
    const ran = new Set(fireTimesOf(await env.jobIds()));
    expect(ran.size).toBeGreaterThanOrEqual(30);
    expect((await m.history('t')).length).toBeLessThanOrEqual(11); // the rest were trimmed
    await t.advance(500); // a paused span: nothing judged it
    const span = t.now();
    await t.advance(100);
    const r = await m.backfill('t', {
      from: createdAt - 1000,
      to: t.now(),
      ratePerSecond: 1000,
    });
    const enqueued = r.occurrences.filter((o) => o.status === 'enqueued').map((o) => o.fireAt);
    for (const t of enqueued) expect(ran.has(t), `ran already at ${t}`).toBe(false);
    // before the schedule existed (10 of them), and its paused span, are backfilled
    expect(enqueued.filter((t) => t < createdAt).length).toBeGreaterThanOrEqual(9);
    expect(enqueued.filter((t) => t >= span - 300 && t <= span).length).toBeGreaterThanOrEqual(3);
  });

  it("overlap takes the schedule's vocabulary: each backfilled job carries the policy's run.slot, as a scheduled one", async () => {
    env = testEnv('bf-vocab');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'v' }, new IntervalTrigger(60), { id: 'v', overlap: 'cancelOther' }).saved;
    await m.pause('v');
    const to = Math.floor((await redisNow(env.redis)) / 60_000) * 60_000;
    const expected = {
      bufferAll: { overlap: 'bufferAll', maxInstances: 1, slot: { mode: 'bufferAll', cap: 1 } },
      allowAll: { overlap: 'allowAll', maxInstances: 0, slot: { mode: 'none', cap: 0 } },
      skip: { overlap: 'skip', maxInstances: 1, slot: { mode: 'skip', cap: 1 } },
      bufferOne: { overlap: 'bufferOne', maxInstances: 1, slot: { mode: 'bufferOne', cap: 1 } },
      cancelOther: { overlap: 'cancelOther', maxInstances: 1, slot: { mode: 'cancelOther', cap: 1 } },
    } as const;
    const policies = [undefined, ...OVERLAP_POLICIES.filter((p) => p !== 'bufferAll')] as const;
    for (const [i, overlap] of policies.entries()) {
      // one minute each, so every backfill's job is its own
      const from = to - (i + 1) * 60_000;
      // the deprecated alias names the same type: code written against it compiles unchanged
      const old: BackfillOverlap | undefined = overlap;
      expectTypeOf<BackfillOverlap>().toEqualTypeOf<OverlapPolicy>();
      const r = await m.backfill('v', { from, to: from + 60_000, ...(old && { overlap: old }) });
      expect(r.enqueued, String(overlap)).toBe(1);
      const job = await internalsOf(m)
        .queue(env.queue)
        .getJob(occurrenceJobId('v', from, 'backfill'));
      const run = (job?.data as { run?: Record<string, unknown> } | undefined)?.run;
      expect(run, String(overlap)).toMatchObject(expected[overlap ?? 'bufferAll']);
    }
  });

  it('bad inputs: a clear error naming the field, nothing enqueued or written', async () => {
    env = testEnv('bf-bad');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'b' }, new IntervalTrigger(1), { id: 'b' }).saved;
    await m.pause('b');
    const now = await redisNow(env.redis);
    const cases: [unknown, string, RegExp][] = [
      [{ from: now, to: now - 1000 }, 'to', /must be after from/],
      [{ from: now, to: now }, 'to', /must be after from/],
      [{ from: now - 1000 }, 'to', /required/],
      [{ to: now }, 'from', /required/],
      [{ from: Number.NEGATIVE_INFINITY, to: now }, 'from', /must be epoch ms.*got -Infinity/],
      [{ from: 'yesterday', to: now }, 'from', /cannot read "yesterday"/],
      [{ from: new Date(Number.NaN), to: now }, 'from', /.+/],
      [{ from: now - 1000, to: 1e20 }, 'to', /out of range/],
      [{ from: now - 100_000, to: now, maxOccurrences: 50 }, 'to', /more than 50 occurrences/],
      [{ from: now - 1000, to: now, ratePerSecond: 0 }, 'ratePerSecond', /from 1 to 100000/],
      [
        { from: now - 1000, to: now, overlap: 'sometimes' },
        'overlap',
        /"skip", "bufferOne", "bufferAll", "cancelOther", "allowAll"/,
      ],
      [{ from: now - 1000, to: now, dryrun: true }, 'dryrun', /unknown option/],
    ];
    for (const [options, field, reason] of cases) {
      const err = await m.backfill('b', options as never).catch((e: unknown) => e);
      expect(err, JSON.stringify(options)).toBeInstanceOf(ScheduleOptionsError);
      expect((err as ScheduleOptionsError).field).toBe(field);
      expect((err as ScheduleOptionsError).reason).toMatch(reason);
      expect((err as Error).message).toMatch(/^schedule "b": /);
    }
    // the default limit: 10,000
    const big = await m.backfill('b', { from: now - 10_001_000, to: now }).catch((e: unknown) => e);
    expect((big as ScheduleOptionsError).reason).toMatch(/more than 10000 occurrences/);
    await expect(m.backfill('nope', { from: now - 1000, to: now })).rejects.toBeInstanceOf(
      ScheduleNotFoundError,
    );
    expect(await env.jobIds()).toEqual([]);
    expect(await m.history('b')).toEqual([]);
    expect(await env.redis.exists(internalsOf(m).keys.backfills('b'))).toBe(0);
  });
});

/**
 * A case's own prefix, queue and client manager, and its worker (10 at once) once started: closed, and
 * its keys removed, when the case finishes (the cases below run side by side).
 */
function ownCase(tag: string, onTestFinished: (fn: () => Promise<void>) => void) {
  const env = testEnv(tag);
  const m = env.manager({ role: 'client' });
  let worker: WorkerHandle | undefined;
  onTestFinished(async () => {
    await worker?.close();
    await env.cleanup();
  });
  return {
    env,
    m,
    async startWorker(): Promise<void> {
      worker = await createWorker(m, { logger: silent, concurrency: 10 });
    },
  };
}

/**
 * The backfilled runs of a schedule on a real worker, one case per overlap policy: each waits on its ten
 * runs of 30 ms one after another (or side by side, allowAll), so the cases run side by side, each on
 * its own prefix, queue and worker.
 */
describe.concurrent('backfilled runs on a real worker', () => {
  for (const overlap of ['cancelOther', 'skip', 'bufferOne', 'bufferAll'] as const) {
    it(`a schedule with overlap ${overlap}: its backfilled runs go one after another, all of them (real worker)`, async ({
      onTestFinished,
    }) => {
      const { m, startWorker, env } = ownCase(`bf-${overlap}`, onTestFinished);
      const ran: number[] = [];
      let live = 0;
      let most = 0;
      m.schedule(
        async function slow(ctx: { fireAt: number; kind: string }) {
          live++;
          most = Math.max(most, live);
          await new Promise((r) => setTimeout(r, 30));
          live--;
          if (ctx.kind === 'backfill') ran.push(ctx.fireAt);
        },
        new IntervalTrigger(60),
        { id: 'slow', overlap },
      );
      await m.start();
      await m.pause('slow');
      await startWorker();
      const to = Math.floor((await redisNow(env.redis)) / 60_000) * 60_000;
      const from = to - 10 * 60_000;
      const r = await m.backfill('slow', { from, to, ratePerSecond: 1000 });
      expect(r.enqueued).toBe(10);
      await waitUntil(() => ran.length >= 10, 20_000);
      expect(ran.sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => from + i * 60_000));
      expect(most).toBe(1);
      const outcomes = async () =>
        (await m.history('slow')).filter((x) => x.kind === 'backfill').map((x) => x.outcome);
      await waitUntil(async () => (await outcomes()).every((o) => o === 'succeeded'));
      expect(await outcomes()).toEqual(Array(10).fill('succeeded'));
    });
  }

  it('allowAll lifts an explicit overlap policy for the backfilled runs (real worker)', async ({
    onTestFinished,
  }) => {
    const { m, startWorker, env } = ownCase('bf-allow', onTestFinished);
    const ran: number[] = [];
    m.schedule(
      async function wide(ctx: { fireAt: number }) {
        await new Promise((r) => setTimeout(r, 30));
        ran.push(ctx.fireAt);
      },
      new IntervalTrigger(60),
      { id: 'wide', overlap: 'cancelOther' },
    );
    await m.start();
    await m.pause('wide');
    await startWorker();
    const to = Math.floor((await redisNow(env.redis)) / 60_000) * 60_000;
    const r = await m.backfill('wide', {
      from: to - 10 * 60_000,
      to,
      ratePerSecond: 1000,
      overlap: 'allowAll',
    });
    expect(r.enqueued).toBe(10);
    await waitUntil(() => ran.length >= 10, 20_000);
    const outcomes = async () =>
      (await m.history('wide')).filter((x) => x.kind === 'backfill').map((x) => x.outcome);
    await waitUntil(async () => (await outcomes()).every((o) => o === 'succeeded'));
    expect(await outcomes()).toEqual(Array(10).fill('succeeded'));
  });
});
