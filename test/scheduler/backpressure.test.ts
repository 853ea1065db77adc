import { type Job, Queue, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import type { FiredEvent, MissedEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { occurrenceJobId, parseOccurrenceJobId } from '../../src/store/forms/job-payload.js';
import { parseState } from '../../src/store/forms/schedule-state.js';
import { keys } from '../../src/store/keys/keys.js';
import { setScriptClock } from '../../src/store/scripts/script-layout.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, silent, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

/**
 * Backpressure per schedule: an occurrence due while the schedule's previous one still waits in its
 * queue (enqueued, not started) is counted as `coalesced`, not enqueued, whatever consumes the queue.
 * The tests with no consumer run on manual time (the fire loop's clock and Redis's, see
 * manual-time.ts): the periods they count are advanced through; those with one run on real time, as
 * BullMQ's workers do.
 */
describe('backpressure', () => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime | undefined;
  let queue: Queue | undefined;
  let worker: Worker | undefined;
  let runtime: WorkerHandle | undefined;
  afterEach(async () => {
    await time?.stopAll();
    time = undefined;
    await runtime?.close({ graceMs: 1000 });
    runtime = undefined;
    await worker?.close();
    await queue?.close();
    worker = undefined;
    queue = undefined;
    await env.cleanup();
  });

  async function counters(prefix: string, ids: readonly string[]) {
    const k = keys(prefix);
    const per = await Promise.all(ids.map((id) => env.redis.hgetall(k.counts(id))));
    const totals = await env.redis.hgetall(k.totals);
    return { per, totals };
  }

  it('with no consumer: one waiting job per schedule, every later occurrence counted as coalesced', async () => {
    env = testEnv('bp-stopped');
    time = new ManualTime(env.redis, env.prefix);
    await time.start();
    const m = env.manager({ backpressure: true });
    time.attach(m);
    const ids = ['a', 'b', 'c'];
    for (const id of ids) m.schedule({ name: 'tick' }, new IntervalTrigger(0.1), { id });
    const coalesced: MissedEvent[] = [];
    m.on('missed', (e) => {
      if (e.reason === 'coalesced') coalesced.push(e);
    });
    await m.start();
    await time.advanceUntil(() => coalesced.length >= 3 * 8, 5000);
    await time.stop(m);

    const stats = internalsOf(m).loopStats!;
    // every claimed occurrence was either enqueued or coalesced: nothing dropped silently
    expect(stats.enqueued + stats.coalesced - stats.coalescedBehind).toBe(
      stats.claimed + stats.coalescedParked,
    );
    // the first of each, and at most one more: a first job added late (a loaded box) has not waited
    // half a period when the next comes due, so that one is enqueued too; every one after waits behind
    // (a third only when the second was added late as well: two late claims in a row, as in the
    // slow-Worker test below)
    expect(stats.enqueued).toBeLessThanOrEqual(3 * ids.length);
    const jobs = await env.jobIds();
    expect(jobs).toHaveLength(stats.enqueued);
    for (const id of ids) {
      const state = parseState(await env.redis.hget(keys(env.prefix).state, id));
      expect(jobs).toContain(occurrenceJobId(id, state!.lastFireAt!));
      expect(state!.fired).toBeGreaterThanOrEqual(1);
      expect(state!.fired).toBeLessThanOrEqual(3);
    }
    const { per, totals } = await counters(env.prefix, ids);
    const sum = per.reduce((s, c) => s + Number(c.coalesced ?? 0), 0);
    expect(sum).toBe(stats.coalesced);
    expect(Number(totals.coalesced)).toBe(stats.coalesced);
    expect(per.every((c) => Number(c.coalesced) >= 1)).toBe(true);
    expect(coalesced.length).toBe(stats.coalesced);
    // what get, list and stats show (and so the CLI, the API and the pages)
    expect((await m.get('a'))!.coalesced).toBe(Number(per[0]!.coalesced));
    expect((await m.list()).reduce((s, j) => s + j.coalesced, 0)).toBe(stats.coalesced);
    expect((await m.stats()).coalesced).toBe(stats.coalesced);
  });

  it("misfire 'all' with overlap bufferAll enqueues every occurrence, waiting or not", async () => {
    env = testEnv('bp-all');
    time = new ManualTime(env.redis, env.prefix);
    await time.start();
    const m = env.manager({ backpressure: true });
    time.attach(m);
    m.schedule({ name: 'tick' }, new IntervalTrigger(0.1), {
      id: 'all',
      misfire: 'all',
      overlap: 'bufferAll',
    });
    m.schedule({ name: 'tick' }, new IntervalTrigger(0.1), { id: 'dflt' });
    const jobsOf = async (id: string) =>
      (await env.jobIds()).filter((j) => parseOccurrenceJobId(j)?.scheduleId === id);
    await m.start();
    await time.advanceUntil(async () => (await jobsOf('all')).length >= 9, 5000, 100);
    await time.stop(m);
    const { per } = await counters(env.prefix, ['all', 'dflt']);
    // 'all': every occurrence it fired is a job, none coalesced, though each waits in the queue
    const all = await jobsOf('all');
    const state = parseState(await env.redis.hget(keys(env.prefix).state, 'all'));
    expect(all).toHaveLength(state!.fired);
    expect(Number(per[0]!.coalesced ?? 0)).toBe(0);
    // the default schedule beside it is held back: one waiting job (a second or a third only when the
    // waiting one was added late, as the slow-Worker test below says), its other occurrences coalesced
    expect((await jobsOf('dflt')).length).toBeLessThanOrEqual(3);
    expect(Number(per[1]!.coalesced)).toBeGreaterThanOrEqual(4);
    expect(
      internalsOf(m).loopStats!.enqueued +
        internalsOf(m).loopStats!.coalesced -
        internalsOf(m).loopStats!.coalescedBehind,
    ).toBe(internalsOf(m).loopStats!.claimed + internalsOf(m).loopStats!.coalescedParked);
  });

  it('a slow plain BullMQ Worker: the queue stays bounded, every occurrence is run or coalesced', async () => {
    env = testEnv('bp-slow');
    const m = env.manager({ backpressure: true });
    const ids = ['x', 'y'];
    for (const id of ids) m.schedule({ name: 'tick' }, new IntervalTrigger(0.1), { id });
    queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
    const ran: string[] = [];
    let maxWaiting = 0; // the most jobs of one schedule waiting at once, seen as each run starts
    worker = new Worker(
      env.queue,
      async (job: Job) => {
        ran.push(job.id!);
        const perSchedule = new Map<string, number>();
        for (const waiting of await queue!.getWaiting()) {
          const id = parseOccurrenceJobId(waiting.id ?? '')?.scheduleId ?? '?';
          perSchedule.set(id, (perSchedule.get(id) ?? 0) + 1);
        }
        maxWaiting = Math.max(maxWaiting, ...perSchedule.values());
        await new Promise((r) => setTimeout(r, 250)); // far slower than the 100 ms period
      },
      { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, concurrency: 1 },
    );
    await m.start();
    await waitUntil(() => ran.length >= 4, 20_000);
    await m.stop();
    await waitUntil(
      async () => (await queue!.getWaitingCount()) === 0 && (await queue!.getActiveCount()) === 0,
    );

    const stats = internalsOf(m).loopStats!;
    expect(stats.enqueued + stats.coalesced - stats.coalescedBehind).toBe(
      stats.claimed + stats.coalescedParked,
    );
    expect(stats.coalesced).toBeGreaterThan(stats.enqueued); // most occurrences found their previous one waiting
    // Bounded: one waiting job per schedule is the rule. A second appears when the waiting one was added
    // late (a busy box: its claim came late) and has not yet waited half the gap, so it has not had a
    // consumer's chance and the next occurrence is enqueued beside it (the README's rule); a third when
    // that one was added late too (two late claims in a row: seen once in ten full runs, a 2-core box at
    // load 5). Without backpressure ~17 more would wait here every second.
    expect(maxWaiting).toBeLessThanOrEqual(3);
    // what was enqueued ran, once each
    expect(new Set(ran).size).toBe(ran.length);
    expect(ran.length).toBe(stats.enqueued);
    const { totals } = await counters(env.prefix, ids);
    expect(Number(totals.coalesced)).toBe(stats.coalesced);
  });

  it("bullbeat's worker runtime as the consumer: slow runs, the queue stays bounded the same way", async () => {
    env = testEnv('bp-runtime');
    const m = env.manager({ backpressure: true });
    const ran: number[] = [];
    m.schedule(
      async (ctx: { fireAt: number }) => {
        ran.push(ctx.fireAt);
        await new Promise((r) => setTimeout(r, 250)); // far slower than the 100 ms period
      },
      new IntervalTrigger(0.1),
      { id: 'slow', name: 'slow' },
    );
    queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
    runtime = await createWorker(m, { concurrency: 1, logger: silent });
    await runtime.ready();
    await m.start();
    await waitUntil(() => ran.length >= 4, 20_000);
    expect(await queue.getWaitingCount()).toBeLessThanOrEqual(1);
    await m.stop();
    const stats = internalsOf(m).loopStats!;
    expect(stats.enqueued + stats.coalesced - stats.coalescedBehind).toBe(
      stats.claimed + stats.coalescedParked,
    );
    expect(stats.coalesced).toBeGreaterThan(0);
    expect(new Set(ran).size).toBe(ran.length);
    const { per } = await counters(env.prefix, ['slow']);
    expect(Number(per[0]!.coalesced)).toBe(stats.coalesced);
  });

  it('a consumer that keeps up: an occurrence is coalesced only while its predecessor still waits, or when the scheduler is a period behind', async () => {
    env = testEnv('bp-fast');
    const m = env.manager({ backpressure: true });
    const periodMs = 200;
    for (let i = 0; i < 20; i++)
      m.schedule({ name: 'tick' }, new IntervalTrigger(periodMs / 1000), { id: `f${i}` });
    const fired: FiredEvent[] = [];
    const coalesced: MissedEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    m.on('missed', (e) => {
      if (e.reason === 'coalesced') coalesced.push(e);
    });
    // when each claim was in hand (this host's clock, the one BullMQ's processedOn is read from): the
    // look-up that may coalesce it comes after
    const claimedBy = new Map<string, number>();
    m.hooks = {
      afterClaim: (claims) => {
        const at = Date.now();
        for (const c of claims) claimedBy.set(`${c.id}@${c.fireAt}`, at);
      },
    };
    let ran = 0;
    worker = new Worker(
      env.queue,
      async () => {
        ran++;
      },
      { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, concurrency: 50 },
    );
    await m.start();
    await waitUntil(() => ran >= 100, 20_000);
    await m.stop();
    const stats = internalsOf(m).loopStats!;
    expect(stats.enqueued + stats.coalesced - stats.coalescedBehind).toBe(
      stats.claimed + stats.coalescedParked,
    );
    // Each coalesced occurrence has its cause, whatever the load: its schedule's previous job had not
    // been taken when it was claimed (the look-up, after the claim, saw it waiting), or the claim came
    // a period late (the next occurrence was due: coalesced behind). A loaded box makes both likelier;
    // neither can hold for an occurrence whose predecessor was taken before its claim, on time.
    // `slackMs`: BullMQ reads processedOn from the worker's clock just before its script takes the job.
    const slackMs = 50;
    queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
    for (const e of coalesced) {
      const claimed = Math.min(...e.fireAts);
      const claimAt = claimedBy.get(`${e.scheduleId}@${claimed}`);
      expect(claimAt, `${e.scheduleId}@${claimed} coalesced without a claim`).toBeDefined();
      for (const fireAt of e.fireAts) {
        if ((claimAt as number) >= fireAt + periodMs - 5) continue; // a period behind
        const before = fired.filter((f) => f.scheduleId === e.scheduleId && f.fireAt < fireAt);
        expect(
          before.length,
          `${e.scheduleId}@${fireAt}: coalesced on time with no job before it`,
        ).toBeGreaterThan(0);
        const previous = before.reduce((x, f) => (f.fireAt > x.fireAt ? f : x));
        const takenAt = (await queue.getJob(previous.jobId))?.processedOn ?? Number.POSITIVE_INFINITY;
        expect(
          takenAt,
          `${e.scheduleId}@${fireAt} coalesced, but ${previous.jobId} was taken before its claim`,
        ).toBeGreaterThanOrEqual((claimAt as number) - slackMs);
      }
    }
  });

  it('claimed right after its predecessor was enqueued (claim ahead longer than the period): judged again when due, not coalesced', async () => {
    env = testEnv('bp-ahead');
    // the next occurrence is within the claim horizon as soon as the previous one is enqueued, so it is
    // claimed a moment after: its predecessor is "waiting" then only because no consumer had a chance yet
    const m = env.manager({ backpressure: true, claimAheadMs: 300, claimLeaseMs: 1200 }); // claimAheadMs <= a quarter lease
    for (let i = 0; i < 5; i++) m.schedule({ name: 'tick' }, new IntervalTrigger(0.25), { id: `h${i}` });
    let ran = 0;
    worker = new Worker(
      env.queue,
      async () => {
        ran++;
      },
      { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, concurrency: 20 },
    );
    await worker.waitUntilReady();
    await m.start();
    await waitUntil(() => ran >= 30, 20_000);
    await m.stop();
    expect(
      internalsOf(m).loopStats!.enqueued +
        internalsOf(m).loopStats!.coalesced -
        internalsOf(m).loopStats!.coalescedBehind,
    ).toBe(internalsOf(m).loopStats!.claimed + internalsOf(m).loopStats!.coalescedParked);
    expect(internalsOf(m).loopStats!.coalesced).toBe(0);
  });

  it('a scheduler that was behind (down for 2.5 s): its backlog is coalesced into the latest occurrence, not enqueued late', async () => {
    env = testEnv('bp-behind');
    const define = (m: ReturnType<typeof env.manager>) =>
      m.schedule({ name: 'tick' }, new IntervalTrigger(0.2), { id: 'b' });
    let ran = 0;
    worker = new Worker(
      env.queue,
      async () => {
        ran++;
      },
      { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, concurrency: 5 },
    );
    await worker.waitUntilReady();
    const first = env.manager({ backpressure: true });
    define(first);
    await first.start();
    await waitUntil(() => ran >= 2, 10_000);
    await first.stop();
    // no replica for 2.5 s (longer than a take-over explains: a claim lease and a little): twelve
    // occurrences come due, all well inside the 60 s misfire grace. The replica that comes then is
    // started now, its claims judging by a clock 2.5 s ahead of Redis's (`setScriptClock`, driven),
    // rather than the test sleeping through the outage
    const offset = (await redisNow(env.redis)) - Date.now() + 2500;
    const second = env.manager({ backpressure: true });
    setScriptClock(internalsOf(second).redis, () => Date.now() + offset);
    define(second);
    const fired: FiredEvent[] = [];
    second.on('fired', (e) => fired.push(e));
    const coalesced: MissedEvent[] = [];
    second.on('missed', (e) => {
      if (e.reason === 'coalesced') coalesced.push(e);
    });
    const restartAt = Date.now() + offset;
    await second.start();
    // its first claim: the backlog coalesced, the latest occurrence enqueued. (The jobs it stages next
    // are due by its clock, 2.5 s ahead of BullMQ's: they wait that long in the delayed set, their
    // successors coalesced behind them meanwhile, which says nothing of the outage.)
    await waitUntil(() => fired.length >= 1 && coalesced.some((e) => e.count > 1), 10_000, {
      what: "the restart's first claim",
    });
    await second.stop();

    // the first claim found its next occurrence due already: coalesced, with those due since, into the
    // latest one, which the same claim enqueued; nothing of the outage was enqueued late
    for (const e of fired) expect(e.fireAt).toBeGreaterThanOrEqual(restartAt - 200);
    const stats = internalsOf(second).loopStats!;
    expect(stats.coalescedBehind).toBeGreaterThanOrEqual(4);
    expect(stats.enqueued + stats.coalesced - stats.coalescedBehind).toBe(
      stats.claimed + stats.coalescedParked,
    );
    // the events name them: as many as counted, each before the restart's latest due time, none enqueued
    expect(coalesced.reduce((n, e) => n + e.count, 0)).toBe(stats.coalesced);
    const runs = new Set(fired.map((e) => e.fireAt));
    for (const e of coalesced) for (const at of e.fireAts) expect(runs.has(at)).toBe(false);
    const behind = coalesced.filter((e) => e.count > 1); // the outage's, coalesced at the first claim
    expect(behind.length).toBeGreaterThan(0);
    expect(Math.max(...behind.flatMap((e) => e.fireAts))).toBeLessThan(Math.min(...runs));
    const { per, totals } = await counters(env.prefix, ['b']);
    expect(Number(per[0]!.coalesced)).toBe(stats.coalesced + (internalsOf(first).loopStats?.coalesced ?? 0));
    expect(Number(totals.coalesced)).toBe(Number(per[0]!.coalesced));
    expect((await second.get('b'))!.coalesced).toBe(Number(per[0]!.coalesced));
  });
});
