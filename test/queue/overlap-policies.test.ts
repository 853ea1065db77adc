// Overlap policies (Temporal's set) on the worker runtime, cluster-wide on the leases: skip, bufferOne,
// bufferAll, cancelOther (through another worker's ctx.signal, by the cancel channel), allowAll (no
// lease at all); and the fencing token every run gets.
import { Queue } from 'bullmq';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import type { RunContext } from '../../src/queue/pipeline.js';
import { type OccurrenceJobData, occurrenceJobId } from '../../src/store/forms/job-payload.js';
import { type OverlapPolicy, resolveOverlap } from '../../src/store/forms/overlap-policy.js';
import { keys } from '../../src/store/keys/keys.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { waitUntil } from '../wait-until.js';
import { REDIS, TestBed } from './helpers.js';
import { StandInScheduler } from './stand-in-scheduler.js';

const silent = pino({ level: 'silent' });
let bed: TestBed;
let handles: WorkerHandle[] = [];
let extraQueues: Queue[] = [];

afterEach(async () => {
  await Promise.all(handles.map((h) => h.close({ graceMs: 500 })));
  handles = [];
  await Promise.all(extraQueues.map(async (q) => q.obliterate({ force: true }).finally(() => q.close())));
  extraQueues = [];
  await bed.cleanup();
});

/** A gate a handler waits on, opened by the test. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open };
}

/**
 * The fire times of the runs whose handler was called: a run is in hand then (its start check took its
 * slot before), sooner than its `running` record, which is written behind (`recordLagMs`).
 */
function runStarts() {
  const fireAts: number[] = [];
  return {
    note: (ctx: RunContext) => {
      fireAts.push(ctx.fireAt);
    },
    started: (fireAt: number) =>
      waitUntil(() => fireAts.includes(fireAt), 15_000, { what: `the run of ${fireAt} started` }),
  };
}

async function worker(scheduler: StandInScheduler, queue: string, leaseRenewMs?: number) {
  const handle = await createWorker(scheduler, {
    queues: [queue],
    concurrency: 4,
    logger: silent,
    slotWaitPollMs: 100,
    ...(leaseRenewMs ? { leaseRenewMs } : {}),
  });
  await handle.ready();
  handles.push(handle);
  return handle;
}

function enqueueOn(queue: Queue, name: string, fireAt: number, overlap: OverlapPolicy, scheduleId = name) {
  const data: OccurrenceJobData = {
    scheduleId,
    fireAt,
    kind: 'scheduled',
    args: [],
    prefix: bed.prefix,
    run: resolveOverlap({ overlap }), // this release's payload: the rule resolved, carried on the job
  };
  return queue.add(name, data, { jobId: occurrenceJobId(scheduleId, fireAt) });
}

async function settled(jobId: string | undefined, queue: Queue = bed.queue) {
  return waitUntil(async () => {
    const state = await queue.getJobState(jobId as string);
    return state === 'completed' || state === 'failed' ? state : undefined;
  }, 15_000);
}

describe('overlap policies', () => {
  it('bufferAll: occurrences due while one runs wait, then run one after another in fire-time order', async () => {
    bed = new TestBed();
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const g = gate();
    const intervals: { fireAt: number; start: number; end: number; token?: number }[] = [];
    const runs = runStarts();
    const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]).register(
      'b',
      async (ctx: RunContext) => {
        runs.note(ctx);
        const start = Date.now();
        if (ctx.fireAt === 1) await g.opened;
        else await new Promise((r) => setTimeout(r, 50));
        intervals.push({ fireAt: ctx.fireAt, start, end: Date.now(), token: ctx.fencingToken });
      },
    );
    await worker(scheduler, bed.queueName);
    const first = await enqueueOn(bed.queue, 'b', 1, 'bufferAll');
    await runs.started(1);
    const third = await enqueueOn(bed.queue, 'b', 3, 'bufferAll');
    const second = await enqueueOn(bed.queue, 'b', 2, 'bufferAll');
    await waitUntil(async () => (await bed.redis.zcard(keys(bed.prefix).runWaiters('b'))) === 2, 15_000);
    expect(await bed.redis.zrange(keys(bed.prefix).runWaiters('b'), '0', '-1')).toEqual([
      second.id,
      third.id,
    ]);
    g.open();
    for (const j of [first, second, third]) expect(await settled(j.id)).toBe('completed');

    expect(intervals.map((i) => i.fireAt)).toEqual([1, 2, 3]);
    for (let i = 1; i < intervals.length; i++) {
      expect(intervals[i]!.start).toBeGreaterThanOrEqual(intervals[i - 1]!.end);
    }
    expect(intervals.map((i) => i.token)).toEqual([1, 2, 3]); // one fencing token per run, increasing
    expect(await history.get('b', 2)).toMatchObject({
      outcome: 'succeeded',
      buffered: true,
      fencingToken: 2,
    });
    expect(await history.get('b', 3)).toMatchObject({
      outcome: 'succeeded',
      buffered: true,
      fencingToken: 3,
    });
    expect(await history.counts('b')).toMatchObject({ runs: 3, skipped: 0 });
  });

  it('bufferOne: one occurrence waits for the running one, a later one is skipped as buffer-full', async () => {
    bed = new TestBed();
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const g = gate();
    const ran: number[] = [];
    const runs = runStarts();
    const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]).register(
      'one',
      async (ctx: RunContext) => {
        runs.note(ctx);
        if (ctx.fireAt === 1) await g.opened;
        ran.push(ctx.fireAt);
      },
    );
    await worker(scheduler, bed.queueName);
    const first = await enqueueOn(bed.queue, 'one', 1, 'bufferOne');
    await runs.started(1);
    const second = await enqueueOn(bed.queue, 'one', 2, 'bufferOne');
    await waitUntil(async () => (await bed.redis.zcard(keys(bed.prefix).runWaiters('one'))) === 1, 15_000);
    const third = await enqueueOn(bed.queue, 'one', 3, 'bufferOne');
    expect(await settled(third.id)).toBe('completed');
    expect((await bed.queue.getJob(third.id as string))?.returnvalue).toEqual({ skipped: 'buffer-full' });
    // a job added by hand has no enqueued record: its skip (decided on the lean path, without facts)
    // still carries the job's facts, written after it
    expect(await history.get('one', 3)).toMatchObject({
      outcome: 'skipped',
      reason: 'buffer-full',
      queue: bed.queueName,
      jobId: third.id,
    });
    expect(scheduler.events).toContainEqual({
      event: 'skipped',
      payload: expect.objectContaining({ scheduleId: 'one', fireAt: 3, reason: 'buffer-full' }),
    });
    g.open();
    expect(await settled(first.id)).toBe('completed');
    expect(await settled(second.id)).toBe('completed');
    expect(ran).toEqual([1, 2]);
    expect(await history.get('one', 2)).toMatchObject({ outcome: 'succeeded', buffered: true });
  });

  it('skip (overlap given): a run due while one runs is skipped as overlap', async () => {
    bed = new TestBed();
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const g = gate();
    const runs = runStarts();
    const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]).register('s', (ctx: RunContext) => {
      runs.note(ctx);
      return g.opened;
    });
    await worker(scheduler, bed.queueName);
    const first = await enqueueOn(bed.queue, 's', 1, 'skip');
    await runs.started(1);
    const second = await enqueueOn(bed.queue, 's', 2, 'skip');
    expect(await settled(second.id)).toBe('completed');
    expect(await history.get('s', 2)).toMatchObject({ outcome: 'skipped', reason: 'overlap' });
    g.open();
    expect(await settled(first.id)).toBe('completed');
  });

  it('cancelOther: a newer occurrence on another worker cancels the running one through its signal, then runs', async () => {
    bed = new TestBed();
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const k = keys(bed.prefix);
    // Two workers on two queues, one schedule: the run on A is cancelled by the arrival on B. A renews
    // its lease once a minute only, so the cancel comes through the cancel channel, not a renewal.
    const queueB = new Queue(`${bed.queueName}-b`, { connection: REDIS });
    extraQueues.push(queueB);
    let reason: unknown;
    const runs = runStarts();
    const a = new StandInScheduler(bed.prefix, [bed.queueName]).register(
      'c',
      (ctx: RunContext) =>
        new Promise((_, reject) => {
          runs.note(ctx);
          ctx.signal.addEventListener('abort', () => {
            reason = ctx.signal.reason;
            reject(ctx.signal.reason);
          });
        }),
    );
    const ranOnB: number[] = [];
    const b = new StandInScheduler(bed.prefix, [queueB.name]).register('c', (ctx: RunContext) => {
      ranOnB.push(ctx.fireAt);
    });
    await worker(a, bed.queueName, 60_000);
    await worker(b, queueB.name, 60_000);

    const old = await enqueueOn(bed.queue, 'c', 1, 'cancelOther');
    await runs.started(1);
    const newer = await enqueueOn(queueB, 'c', 2, 'cancelOther');
    expect(await settled(old.id)).toBe('completed');
    expect((await bed.queue.getJob(old.id as string))?.returnvalue).toEqual({ cancelled: true });
    expect((reason as Error).name).toBe('RunCancelledError');
    expect(await history.get('c', 1)).toMatchObject({ outcome: 'cancelled', fencingToken: 1 });
    expect(await settled(newer.id, queueB)).toBe('completed');
    expect(ranOnB).toEqual([2]);
    expect(await history.get('c', 2)).toMatchObject({
      outcome: 'succeeded',
      buffered: true,
      fencingToken: 2,
    });
    // Nothing is left behind: no lease, no waiter, no cancel mark.
    expect(await bed.redis.zcard(k.lease('c'))).toBe(0);
    expect(await bed.redis.zcard(k.runWaiters('c'))).toBe(0);
    expect(await bed.redis.scard(k.cancelled('c'))).toBe(0);
    // An occurrence older than one already started is superseded, not run.
    const late = await enqueueOn(bed.queue, 'c', 0, 'cancelOther');
    expect(await settled(late.id)).toBe('completed');
    expect(await history.get('c', 0)).toMatchObject({ outcome: 'skipped', reason: 'superseded' });
  });

  it('allowAll (and maxInstances 0 without coalesce) takes no lease: runs overlap, each with its own token', async () => {
    bed = new TestBed();
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const g = gate();
    let running = 0;
    let most = 0;
    const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]).register('all', async () => {
      running++;
      most = Math.max(most, running);
      await g.opened;
      running--;
    });
    await worker(scheduler, bed.queueName);
    const jobs = [
      await enqueueOn(bed.queue, 'all', 1, 'allowAll'),
      await enqueueOn(bed.queue, 'all', 2, 'allowAll'),
    ];
    jobs.push(await bed.enqueue('all', { fireAt: 3, run: { maxInstances: 0, coalesce: false } }));
    await waitUntil(async () => running === 3, 15_000);
    expect(await bed.redis.exists(keys(bed.prefix).lease('all'))).toBe(0);
    g.open();
    for (const j of jobs) expect(await settled(j.id)).toBe('completed');
    expect(most).toBe(3);
    const tokens = (await history.list('all')).map((r) => r.fencingToken).sort();
    expect(tokens).toEqual([1, 2, 3]);
    expect(await history.counts('all')).toMatchObject({ runs: 3, skipped: 0 });
  });
});
