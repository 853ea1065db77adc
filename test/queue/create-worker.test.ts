import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LeaseLostError } from '../../src/errors/lease-lost-error.js';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import type { Middleware, RunContext } from '../../src/queue/pipeline.js';
import type { WorkerClock } from '../../src/queue/worker-clock.js';
import { type OccurrenceJobData, occurrenceJobId } from '../../src/store/forms/job-payload.js';
import { keys } from '../../src/store/keys/keys.js';
import { activeRuns } from '../../src/store/reads/lease-store.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { waitUntil } from '../wait-until.js';
import { TestBed } from './helpers.js';
import { ManualClock } from './manual-clock.js';
import { StandInScheduler } from './stand-in-scheduler.js';

const silent = pino({ level: 'silent' });
let bed: TestBed;
let handle: WorkerHandle | undefined;

afterEach(async () => {
  await handle?.close({ graceMs: 1000 });
  handle = undefined;
  await bed.cleanup();
});

async function setup(
  register: (s: StandInScheduler) => void,
  concurrency = 1,
  leaseTtlMs?: number,
  clock?: WorkerClock,
) {
  bed = new TestBed();
  const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]);
  register(scheduler);
  handle = await createWorker(scheduler, {
    // Explicit, so that a test registering no handler still serves the queue (jobs with no handler fail).
    queues: [bed.queueName],
    concurrency,
    logger: silent,
    ...(leaseTtlMs ? { leaseTtlMs } : {}),
    ...(clock ? { clock } : {}),
  });
  await handle.ready();
  const history = new RunHistory(bed.redis, keys(bed.prefix));
  return { scheduler, history };
}

async function settled(jobId: string | undefined) {
  return waitUntil(async () => {
    const state = await bed.queue.getJobState(jobId as string);
    return state === 'completed' || state === 'failed' ? state : undefined;
  }, 15_000);
}

/**
 * A handler that holds every run until `release()`, and the fire times of the runs it was called for:
 * a run is in hand once its handler is called (its start check took its slot and lease before), sooner
 * than its `running` record, which is written behind (`recordLagMs`).
 */
function heldRuns() {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const started: number[] = [];
  return {
    handler: (ctx: RunContext) => {
      started.push(ctx.fireAt);
      return gate;
    },
    started: (fireAt: number) =>
      waitUntil(() => started.includes(fireAt), 15_000, { what: `the run of ${fireAt} started` }),
    release: () => release(),
  };
}

describe('createWorker', () => {
  it('runs the handler by job name with ...args, ctx and records the run', async () => {
    const seen: unknown[][] = [];
    const { history } = await setup((s) =>
      s.register('report', (...a: unknown[]) => {
        seen.push(a);
        return 'done';
      }),
    );
    const job = await bed.enqueue('report', { fireAt: 1_000, args: ['x', 2] });
    expect(await settled(job.id)).toBe('completed');
    expect((await bed.queue.getJob(job.id as string))?.returnvalue).toBe('done');
    const [a, b, ctx] = seen[0] as [string, number, RunContext];
    expect([a, b]).toEqual(['x', 2]);
    expect(ctx).toMatchObject({
      scheduleId: 'report',
      name: 'report',
      fireAt: 1_000,
      attempt: 1,
      kind: 'scheduled',
    });
    expect(ctx.signal).toBeInstanceOf(AbortSignal);
    expect(ctx.job?.id).toBe(job.id);
    const record = await history.get('report', 1_000);
    expect(record).toMatchObject({ outcome: 'succeeded', attempts: 1, queue: bed.queueName, jobId: job.id });
    expect(record?.startedAt).toBeLessThanOrEqual(record?.finishedAt as number);
    expect(await history.counts('report')).toMatchObject({ runs: 1, errors: 0 });
  });

  it('a run whose enqueued record is there (as the scheduler leaves it) keeps its job facts, sent once', async () => {
    const { history } = await setup((s) => s.register('kept', () => 'ok'));
    // the completion's `enqueued` record, as the scheduler writes it before any worker takes the job
    const jobId = occurrenceJobId('kept', 2_000);
    await history.merge('kept', 2_000, false, {
      outcome: 'enqueued',
      kind: 'scheduled',
      queue: bed.queueName,
      jobId,
      enqueuedAt: 1,
      replica: 'r1',
    });
    const job = await bed.enqueue('kept', { fireAt: 2_000 });
    expect(job.id).toBe(jobId);
    expect(await settled(job.id)).toBe('completed');
    // written behind with its outcome: the start's facts, the enqueued record's facts kept
    expect(await history.get('kept', 2_000)).toMatchObject({
      outcome: 'succeeded',
      attempts: 1,
      queue: bed.queueName,
      jobId,
      kind: 'scheduled',
      replica: 'r1',
      fencingToken: expect.any(Number),
      startedAt: expect.any(Number),
      finishedAt: expect.any(Number),
    });
  });

  it('runs middleware first listed outermost', async () => {
    const order: string[] = [];
    const tag =
      (name: string): Middleware =>
      (handler) =>
      async () => {
        order.push(`${name}>`);
        await handler();
        order.push(`<${name}`);
      };
    await setup((s) =>
      s.register('mw', () => order.push('fn'), { middleware: [tag('outer'), tag('inner')] }),
    );
    const job = await bed.enqueue('mw');
    expect(await settled(job.id)).toBe('completed');
    expect(order).toEqual(['outer>', 'inner>', 'fn', '<inner', '<outer']);
  });

  it('fails a job with no handler, naming it, keeps it, and runs it on retry once registered', async () => {
    const { scheduler, history } = await setup(() => {});
    const job = await bed.enqueue('notDeployed', { fireAt: 5_000 });
    expect(await settled(job.id)).toBe('failed');
    const failed = await bed.queue.getJob(job.id as string);
    expect(failed?.failedReason).toContain('"notDeployed"');
    expect(failed?.failedReason).toContain('no handler');
    expect((await bed.queue.getFailed()).map((j) => j.id)).toContain(job.id);
    expect(await history.get('notDeployed', 5_000)).toMatchObject({ outcome: 'failed' });

    let ran = 0;
    scheduler.register('notDeployed', () => ran++);
    await failed?.retry();
    expect(await settled(job.id)).toBe('completed');
    expect(ran).toBe(1);
    expect(await history.get('notDeployed', 5_000)).toMatchObject({ outcome: 'succeeded' });
  });

  it('aborts the signal at timeoutMs and fails the job with a timeout error', async () => {
    let aborted: unknown;
    let started = false;
    // the worker's clock (its timeouts) manual: the run is aborted at 200 ms of it, not at 199
    const clock = new ManualClock();
    const { history, scheduler } = await setup(
      (s) =>
        s.register(
          'slow',
          (ctx: RunContext) =>
            new Promise((_, reject) => {
              started = true;
              ctx.signal.addEventListener('abort', () => {
                aborted = ctx.signal.reason;
                reject(ctx.signal.reason);
              });
            }),
        ),
      1,
      undefined,
      clock,
    );
    const job = await bed.enqueue('slow', { fireAt: 7_000, run: { timeoutMs: 200 } });
    await waitUntil(() => started, 15_000, { what: 'the run started' }); // its deadline armed before
    await clock.advance(199);
    expect(aborted).toBeUndefined();
    await clock.advance(1);
    expect(await settled(job.id)).toBe('failed');
    const failed = await bed.queue.getJob(job.id as string);
    expect(failed?.failedReason).toBe('schedule "slow" timed out after 200 ms');
    expect((aborted as Error).name).toBe('TimeoutError');
    expect(await history.get('slow', 7_000)).toMatchObject({
      outcome: 'failed',
      error: 'schedule "slow" timed out after 200 ms',
    });
    expect(await history.counts('slow')).toMatchObject({ runs: 1, errors: 1 });
    expect(scheduler.events.map((e) => e.event)).toEqual(['failed']);
  });

  it('retries through BullMQ attempts/backoff: fails twice, then succeeds on attempt 3 with no stale error', async () => {
    const attempts: number[] = [];
    const outcomes: string[] = [];
    const { history } = await setup((s) =>
      s.register('flaky', async (ctx: RunContext) => {
        const record = await new RunHistory(bed.redis, keys(bed.prefix)).get('flaky', 9_000);
        outcomes.push(record?.outcome ?? 'none');
        attempts.push(ctx.attempt);
        if (ctx.attempt < 3) throw new Error(`flake ${ctx.attempt}`);
      }),
    );
    const job = await bed.enqueue('flaky', {
      fireAt: 9_000,
      opts: { attempts: 3, backoff: { type: 'fixed', delay: 50 } },
    });
    await waitUntil(async () => (await bed.queue.getJobState(job.id as string)) === 'completed', 15_000);
    expect(attempts).toEqual([1, 2, 3]);
    // The record a handler reads is the one before its start: the `running` record is written
    // behind (recordLagMs), with the outcome of an attempt that ends first.
    expect(outcomes).toEqual(['none', 'retrying', 'retrying']);
    const record = await history.get('flaky', 9_000);
    expect(record).toMatchObject({ outcome: 'succeeded', attempts: 3 });
    // The earlier attempts' errors are history, not the current state of a run that succeeded.
    expect(record).not.toHaveProperty('error');
    expect(record?.previousAttempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'failed', error: 'flake 1' }),
      expect.objectContaining({ attempt: 2, outcome: 'failed', error: 'flake 2' }),
    ]);
    expect(await history.counts('flaky')).toMatchObject({ runs: 1, errors: 0 });
  });

  it('runs again a run lost with its worker, even with attempts: 1 (a lost attempt does not use one up)', async () => {
    let ran = 0;
    const { history } = await setup((s) => s.register('once', () => ran++));
    // What a worker killed mid-run leaves behind: the record says running, for this job.
    const jobId = occurrenceJobId('once', 13_000);
    await history.merge('once', 13_000, false, {
      outcome: 'running',
      startedAt: 12_999,
      attempts: 1,
      worker: 'gone:1',
      jobId,
    });
    const job = await bed.enqueue('once', { fireAt: 13_000 }); // BullMQ delivers it again
    expect(await settled(job.id)).toBe('completed');
    expect(ran).toBe(1);
    const record = await history.get('once', 13_000);
    expect(record).toMatchObject({
      outcome: 'succeeded',
      attempts: 2,
      previousAttempts: [{ attempt: 1, outcome: 'lost', startedAt: 12_999, worker: 'gone:1' }],
    });
    expect(record).not.toHaveProperty('error');
  });

  it('records the attempt before the last as retrying', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const { history } = await setup((s) =>
      s.register('twice', async (ctx: RunContext) => {
        if (ctx.attempt === 1) throw new Error('first');
        await gate;
      }),
    );
    const job = await bed.enqueue('twice', { fireAt: 11_000, opts: { attempts: 2, backoff: 300 } });
    const retrying = await waitUntil(async () => {
      const r = await history.get('twice', 11_000);
      return r?.outcome === 'retrying' ? r : undefined;
    }, 15_000);
    expect(retrying).toMatchObject({ error: 'first', attempts: 1 });
    release();
    expect(await settled(job.id)).toBe('completed');
  });

  it('skips an occurrence whose schedule is already running (maxInstances 1), recording overlap', async () => {
    const held = heldRuns();
    const { history, scheduler } = await setup((s) => s.register('long', held.handler), 2);
    const first = await bed.enqueue('long', { fireAt: 1 });
    await held.started(1);
    expect((await activeRuns(bed.redis, keys(bed.prefix), ['long', 'other'])).get('long')).toBe(1);
    const second = await bed.enqueue('long', { fireAt: 2 });
    expect(await settled(second.id)).toBe('completed');
    expect((await bed.queue.getJob(second.id as string))?.returnvalue).toEqual({ skipped: 'overlap' });
    expect(await history.get('long', 2)).toMatchObject({ outcome: 'skipped', reason: 'overlap' });
    expect(scheduler.events).toEqual([
      {
        event: 'skipped',
        payload: expect.objectContaining({ scheduleId: 'long', fireAt: 2, reason: 'overlap' }),
      },
    ]);
    held.release();
    expect(await settled(first.id)).toBe('completed');
    expect(await history.counts('long')).toMatchObject({ runs: 1, skipped: 1 });
    expect(await activeRuns(bed.redis, keys(bed.prefix), ['long'])).toEqual(new Map([['long', 0]]));
    // The slot is free again.
    const third = await bed.enqueue('long', { fireAt: 3 });
    expect(await settled(third.id)).toBe('completed');
    expect(await history.get('long', 3)).toMatchObject({ outcome: 'succeeded' });
  });

  it('caps a job that carries no run options at one running instance (the documented default)', async () => {
    const held = heldRuns();
    const { history } = await setup((s) => s.register('bare', held.handler), 2);
    // As a foreign producer or an older payload would enqueue it: no `run`.
    const add = (fireAt: number) => {
      const data: Omit<OccurrenceJobData, 'run'> = {
        scheduleId: 'bare',
        fireAt,
        kind: 'scheduled',
        args: [],
        prefix: bed.prefix,
      };
      return bed.queue.add('bare', data, { jobId: occurrenceJobId('bare', fireAt) });
    };
    const first = await add(1);
    await held.started(1);
    await add(2);
    const second = await waitUntil(async () => {
      const r = await history.get('bare', 2);
      return r?.outcome === 'running' || r?.outcome === 'skipped' ? r : undefined;
    }, 15_000);
    expect(second).toMatchObject({ outcome: 'skipped', reason: 'overlap' });
    held.release();
    expect(await settled(first.id)).toBe('completed');
  });

  it('renews the lease of a run that outlives the lease TTL, so its slot stays taken', async () => {
    const held = heldRuns();
    const ttl = 600; // renewed every 200 ms
    const { history } = await setup((s) => s.register('marathon', held.handler), 2, ttl);
    const first = await bed.enqueue('marathon', { fireAt: 1 });
    await held.started(1);
    const leaseKey = keys(bed.prefix).lease('marathon');
    const [, firstExpiry] = await bed.redis.zrange(leaseKey, '0', '0', 'WITHSCORES');
    // Wait until the lease has been renewed past its first expiry: the run outlived one TTL.
    await waitUntil(
      async () => {
        const [, expiry] = await bed.redis.zrange(leaseKey, '0', '0', 'WITHSCORES');
        return Number(expiry) > Number(firstExpiry) + ttl;
      },
      20_000,
      { what: 'the lease to be renewed' },
    );
    const probe = await bed.enqueue('marathon', { fireAt: 2 });
    expect(await settled(probe.id)).toBe('completed');
    expect(await history.get('marathon', 2)).toMatchObject({ outcome: 'skipped', reason: 'overlap' });
    held.release();
    expect(await settled(first.id)).toBe('completed');
    expect(await bed.redis.zcard(leaseKey)).toBe(0); // released, not left to lapse
  });

  it('aborts a run whose lease was given away (its worker stalled past the TTL), with LeaseLostError', async () => {
    let reason: unknown;
    let started = false;
    const { history } = await setup(
      (s) =>
        s.register(
          'stalled',
          (ctx: RunContext) =>
            new Promise((_, reject) => {
              started = true;
              ctx.signal.addEventListener('abort', () => {
                reason = ctx.signal.reason;
                reject(ctx.signal.reason);
              });
            }),
        ),
      1,
      600,
    );
    const job = await bed.enqueue('stalled', { fireAt: 1 });
    await waitUntil(() => started, 15_000, { what: 'the run started' });
    // What another worker does when this one has stalled past the TTL: drop the lapsed lease, take the slot.
    const leaseKey = keys(bed.prefix).lease('stalled');
    const [mine] = await bed.redis.zrange(leaseKey, '0', '0');
    expect(mine).toBeDefined();
    await bed.redis
      .multi()
      .zrem(leaseKey, mine!)
      .zadd(leaseKey, Date.now() + 60_000, 'other-run')
      .exec();
    expect(await settled(job.id)).toBe('failed');
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect((await bed.queue.getJob(job.id as string))?.failedReason).toContain('lost its lease');
    expect(await history.get('stalled', 1)).toMatchObject({ outcome: 'failed' });
    expect(await bed.redis.zrange(leaseKey, '0', '-1')).toEqual(['other-run']); // the new holder's lease stays
  });

  it("cancelJob on the handle's worker stops that run through its signal, with the reason given, and fails it", async () => {
    let reason: unknown;
    let started = false;
    const { history } = await setup(
      (s) =>
        s.register(
          'cancellable',
          (ctx: RunContext) =>
            new Promise((_, reject) => {
              started = true;
              ctx.signal.addEventListener('abort', () => {
                reason = ctx.signal.reason;
                reject(new Error(`aborted: ${String(ctx.signal.reason)}`));
              });
            }),
        ),
      2,
    );
    const job = await bed.enqueue('cancellable', { fireAt: 1 });
    await waitUntil(() => started, 15_000, { what: 'the run started' });
    const [worker] = handle!.workers;
    expect(worker!.cancelJob('no-such-job')).toBe(false);
    expect(worker!.cancelJob(job.id as string, 'asked to stop')).toBe(true);
    expect(await settled(job.id)).toBe('failed');
    expect(reason).toBe('asked to stop');
    // the run settles with the stop's reason at once, whatever the handler does with it
    expect(await history.get('cancellable', 1)).toMatchObject({ outcome: 'failed', error: 'asked to stop' });
  });

  it('lets maxInstances 2 run two at once, and unlimited with 0 and coalesce off', async () => {
    const held = heldRuns();
    const { history } = await setup((s) => s.register('wide', held.handler), 4);
    const run = { maxInstances: 2, coalesce: false };
    await bed.enqueue('wide', { fireAt: 1, run });
    await bed.enqueue('wide', { fireAt: 2, run });
    await held.started(1);
    await held.started(2);
    const third = await bed.enqueue('wide', { fireAt: 3, run });
    expect(await settled(third.id)).toBe('completed');
    expect(await history.get('wide', 3)).toMatchObject({ outcome: 'skipped', reason: 'overlap' });
    const unlimited = await bed.enqueue('wide', { fireAt: 4, run: { maxInstances: 0, coalesce: false } });
    await held.started(4);
    held.release();
    expect(await settled(unlimited.id)).toBe('completed');
  });
});
