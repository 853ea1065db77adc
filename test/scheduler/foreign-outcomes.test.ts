// Plain BullMQ consumers (not bullbeat's worker runtime) are first-class: the outcome of each
// occurrence they run is recorded from BullMQ's own events and job state, so list()/get(), the
// dashboard and the CLI tell the truth.
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleReader } from '../../dashboard/schedule-reader.js';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import { resolveForeignOutcomesOptions } from '../../src/scheduler/contract/foreign-outcomes-options.js';
import { internalsOf } from '../../src/scheduler/index.js';
import type { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { ForeignOutcomes } from '../../src/scheduler/outcomes/foreign-outcomes.js';
import { announceRuntimeQueues, liveRuntimeQueues } from '../../src/store/bullmq/runtime-queues.js';
import { redisTarget } from '../../src/store/connection/redis-target.js';
import { occurrenceJobId, parseOccurrenceJobId } from '../../src/store/forms/job-payload.js';
import type { RunRecord } from '../../src/store/forms/run-record.js';
import { keys } from '../../src/store/keys/keys.js';
import { storeScripts } from '../../src/store/scripts/scripts.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, silent, testEnv } from './helpers.js';

const ENQUEUED_RECORDS_SHA = storeScripts().find((s) => s.name === 'enqueued-records')?.sha;

const connection = { url: REDIS_URL, maxRetriesPerRequest: null };

/**
 * A reconciliation pass every 100 ms (by default every 2 s in a replica's first minute, then every
 * 10 s): a plain Worker is found within a few occurrences, and passes run all along each test, free to
 * write over a record they should leave alone.
 */
const OFTEN = { foreignOutcomes: { reconcileIntervalMs: 100 } };

let env: ReturnType<typeof testEnv> | undefined;
const workers: Worker[] = [];
let handle: WorkerHandle | undefined;

afterEach(async () => {
  if (!env) return;
  await Promise.all(workers.splice(0).map((w) => w.close()));
  await handle?.close({ graceMs: 1000 });
  handle = undefined;
  await env.cleanup();
  env = undefined;
});

/** A plain BullMQ worker, as `examples/email-service.ts` runs one: it knows nothing of bullbeat. */
function plainWorker(queue: string, fn: () => unknown): Worker {
  const w = new Worker(queue, async () => fn(), { connection, concurrency: 5 });
  w.on('error', () => {});
  workers.push(w);
  return w;
}

async function finishedJobs(queue: string): Promise<{ completed: number; failed: number; open: number }> {
  const q = new Queue(queue, { connection });
  const c = await q.getJobCounts('completed', 'failed', 'wait', 'active', 'delayed', 'prioritized');
  await q.close();
  const open = (c.wait ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0);
  return { completed: c.completed ?? 0, failed: c.failed ?? 0, open };
}

/** Pause the schedule, let the consumer drain the queue and every record settle; then the figures. */
async function settle(m: SchedulerManager, id: string, queue: string) {
  await m.pause(id);
  let jobs = await finishedJobs(queue);
  await waitUntil(async () => {
    jobs = await finishedJobs(queue);
    const records = await m.history(id);
    return jobs.open === 0 && records.every((r) => r.outcome !== 'enqueued');
  }, 20_000);
  return jobs;
}

/** Schedule `s` on `queue` with the `enqueued` record of its occurrence at 1000 (job `jobId`), as a completion writes it. */
async function enqueuedRecord(
  redis: Redis,
  k: ReturnType<typeof keys>,
  queue: string,
  jobId: string,
  ...more: string[]
): Promise<void> {
  await redis.hset(k.schedules, 's', JSON.stringify({ name: 's', queue }));
  await redis.zadd(k.runIndex('s'), 1000, '1000');
  await redis.hset(k.record('s', '1000'), 'outcome', 'enqueued', 'queue', queue, 'jobId', jobId, ...more);
}

describe('foreign consumers', () => {
  it('reads the occurrence back from its job id, and ignores any other job', () => {
    for (const [id, manual] of [
      ['digest', false],
      ['a-b:c/d é', true],
      ['-', false],
      ['bf-x', 'backfill'],
    ] as const) {
      expect(parseOccurrenceJobId(occurrenceJobId(id, 1700000000123, manual))).toEqual({
        scheduleId: id,
        fireAt: 1700000000123,
        manual,
      });
    }
    for (const other of ['42', 'bb-', 'bb-x-', 'bb-x-12a', 'repeat:abc:1']) {
      expect(parseOccurrenceJobId(other)).toBeNull();
    }
  });

  it('a plain BullMQ Worker that completes every job counts as runs, succeeded, not failing', async () => {
    env = testEnv('foreign-ok');
    const m = env.manager(OFTEN);
    plainWorker(env.queue, () => ({ sent: true }));
    // every 200 ms: "failing" means no success seen for a few intervals, and the follower writes a plain
    // Worker's outcomes up to a reconciliation pass late (at 50 ms, a pass behind read as failing)
    const job = m.schedule({ queue: env.queue, name: 'send-digest' }, new IntervalTrigger(0.2), {
      id: 'digest',
    });
    await job.saved;
    await m.start();
    await waitUntil(async () => ((await m.get('digest'))?.runs ?? 0) >= 5, 20_000);

    const [listed] = await m.list();
    expect(listed?.runs).toBeGreaterThanOrEqual(5);
    expect(listed?.errors).toBe(0);
    const latest = (await m.history('digest')).find((r) => r.outcome !== 'enqueued');
    expect(latest).toMatchObject({ outcome: 'succeeded', consumer: 'foreign', attempts: 1 });
    expect(latest?.startedAt).toBeGreaterThanOrEqual(latest?.fireAt as number);
    expect(latest?.finishedAt).toBeGreaterThanOrEqual(latest?.startedAt as number);

    const reader = new ScheduleReader(env.redis, internalsOf(m).keys, 100);
    const view = await reader.one('digest');
    expect(view?.lastOutcome).toBe('succeeded');
    expect(view?.badges).not.toContain('failing');

    const jobs = await settle(m, 'digest', env.queue);
    expect((await m.get('digest'))?.runs).toBe(jobs.completed);
  }, 60_000);

  it('a plain BullMQ Worker that fails every job counts as errors, with the latest outcome failed', async () => {
    env = testEnv('foreign-ko');
    const m = env.manager(OFTEN);
    plainWorker(env.queue, () => {
      throw new Error('smtp is down');
    });
    const job = m.schedule({ queue: env.queue, name: 'send-digest' }, new IntervalTrigger(0.05), {
      id: 'digest',
    });
    await job.saved;
    await m.start();
    await waitUntil(async () => ((await m.get('digest'))?.errors ?? 0) >= 3, 20_000);
    const got = await m.get('digest');
    expect(got?.runs).toBeGreaterThanOrEqual(got?.errors as number);
    const latest = (await m.history('digest')).find((r) => r.outcome !== 'enqueued');
    expect(latest).toMatchObject({ outcome: 'failed', error: 'smtp is down', consumer: 'foreign' });
    const jobs = await settle(m, 'digest', env.queue);
    expect(await m.history.counts('digest')).toMatchObject({ runs: jobs.failed, errors: jobs.failed });
  }, 60_000);

  it('every outcome is counted once although several scheduler replicas observe it', async () => {
    env = testEnv('foreign-replicas');
    const replicas = [env.manager(OFTEN), env.manager(OFTEN), env.manager(OFTEN)];
    plainWorker(env.queue, () => 'ok');
    for (const r of replicas)
      r.schedule({ queue: env.queue, name: 'n' }, new IntervalTrigger(0.02), { id: 's' });
    await Promise.all(replicas.map((r) => r.start()));
    const m = replicas[0] as SchedulerManager;
    await waitUntil(async () => ((await m.get('s'))?.runs ?? 0) >= 15, 20_000);
    const jobs = await settle(m, 's', env.queue);
    expect(jobs.completed).toBeGreaterThanOrEqual(15);
    expect(await m.history.counts('s')).toMatchObject({ runs: jobs.completed, errors: 0 });
    expect((await m.history.totals()).runs).toBe(jobs.completed);
  }, 60_000);

  it("a bullbeat worker's own records are never overwritten nor counted twice", async () => {
    env = testEnv('foreign-own');
    const m = env.manager(OFTEN);
    let ran = 0;
    m.every(0.05, { id: 'own' })(async function own() {
      ran++;
    });
    handle = await createWorker(m, { logger: silent });
    await handle.ready();
    await m.start();
    await waitUntil(() => ran >= 5, 20_000);
    const jobs = await settle(m, 'own', env.queue);
    const records = await m.history('own');
    expect(records.every((r: RunRecord) => r.consumer === undefined)).toBe(true);
    // each completed job counted once: a run, or (a loaded box taking two staged occurrences at once)
    // an overlap skip, whose job completes too
    const counts = await m.history.counts('own');
    expect(counts.runs + (counts.skipped ?? 0)).toBe(jobs.completed);
  }, 60_000);

  it('outcomes a plain Worker produced while no scheduler listened are reconciled at the next start', async () => {
    env = testEnv('foreign-missed');
    const fast = { foreignOutcomes: { reconcileMinAgeMs: 100, reconcileIntervalMs: 100 } };
    const first = env.manager(fast);
    first.schedule({ queue: env.queue, name: 'n' }, new IntervalTrigger(0.05), { id: 's' });
    await first.start();
    // the pause takes out what was committed ahead and not due yet (a claim horizon: two at most)
    await waitUntil(async () => (await first.history('s')).length >= 7, 20_000);
    await first.pause('s');
    await first.stop();
    // No scheduler runs now: the consumer drains the queue unobserved.
    const queue = env.queue;
    plainWorker(queue, () => 'ok');
    let jobs = await finishedJobs(queue);
    await waitUntil(async () => {
      jobs = await finishedJobs(queue);
      return jobs.open === 0;
    }, 20_000);
    expect(jobs.completed).toBeGreaterThanOrEqual(5);
    const second = env.manager(fast);
    await second.start();
    await waitUntil(
      async () =>
        (await second.history('s')).every((r) => r.outcome === 'succeeded' || r.reason === 'paused'),
      20_000,
    );
    expect((await second.history.counts('s')).runs).toBe(jobs.completed);
  }, 60_000);

  it("reads no record of a queue bullbeat's worker runtime consumes, but in a checking scan", async () => {
    env = testEnv('foreign-skip');
    const { redis, prefix, queue } = env;
    const k = keys(prefix);
    const plainQueue = `${queue}-plain`;
    await redis.hset(
      k.schedules,
      'ran-by-runtime',
      JSON.stringify({ name: 'r', queue }),
      'ran-by-plain',
      JSON.stringify({ name: 'p', queue: plainQueue }),
    );
    await announceRuntimeQueues(redis, k, [queue]);
    expect([...(await liveRuntimeQueues(redis, k, Date.now()))]).toEqual([queue]);
    // every schedule whose records the follower reads (the ids its `enqueued-records-1` calls carry,
    // after the key, the base and the depth), as the record indexes they name, on its own client
    const read: string[] = [];
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((command: { name: string; args: unknown[] }, ...rest: unknown[]) => {
      if (command.name === 'evalsha' && command.args[0] === ENQUEUED_RECORDS_SHA)
        for (const id of command.args.slice(5)) read.push(k.runIndex(String(id)));
      return (send as (...a: unknown[]) => unknown)(command, ...rest);
    }) as typeof redis.sendCommand;
    const follower = (runtimeCheckIntervalMs: number) =>
      new ForeignOutcomes({
        redis,
        keys: k,
        prefix,
        historyLimit: 100,
        logger: silent,
        options: resolveForeignOutcomesOptions({ runtimeCheckIntervalMs }),
        connection: redisTarget(REDIS_URL),
      });
    const quiet = follower(3_600_000);
    await quiet.start();
    await quiet.stop(); // no timer: passes by hand
    for (let pass = 0; pass < 3; pass++) await quiet.reconcile();
    expect(read).toEqual([
      k.runIndex('ran-by-plain'),
      k.runIndex('ran-by-plain'),
      k.runIndex('ran-by-plain'),
    ]);
    // a checking scan (here every scan after the first) reads the runtime's queue too
    read.length = 0;
    const checking = follower(0);
    await checking.start();
    await checking.stop();
    await checking.reconcile();
    expect(read).toEqual([k.runIndex('ran-by-plain')]);
    read.length = 0;
    await checking.reconcile();
    expect(read.sort()).toEqual([k.runIndex('ran-by-plain'), k.runIndex('ran-by-runtime')].sort());
  });

  it('a job a bullbeat worker ran between the read of its record and of its state finds no foreign consumer', async () => {
    env = testEnv('foreign-race');
    const { redis, prefix, queue } = env;
    const k = keys(prefix);
    const jobId = occurrenceJobId('s', 1000);
    await enqueuedRecord(redis, k, queue, jobId, 'enqueuedAt', '1000');
    await redis.zadd(`bull:${queue}:completed`, 2000, jobId);
    // the follower reads the record (`enqueued`), then Redis's time: meanwhile the worker runtime's
    // run of the job starts and ends, and its job is completed
    const moved = new Redis(REDIS_URL);
    let read = false;
    let armed = true;
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((
      command: { name: string; args: unknown[]; promise: Promise<unknown> },
      ...rest: unknown[]
    ) => {
      // the records read, by `enqueued-records-1`
      if (command.name === 'evalsha' && command.args[0] === ENQUEUED_RECORDS_SHA) read = true;
      if (command.name !== 'time' || !read || !armed)
        return (send as (...a: unknown[]) => unknown)(command, ...rest);
      armed = false;
      void moved
        .hset(k.record('s', '1000'), 'outcome', 'succeeded', 'startedAt', 1500, 'finishedAt', 1900)
        .then(() => (send as (...a: unknown[]) => unknown)(command, ...rest));
      return command.promise;
    }) as typeof redis.sendCommand;
    const follower = new ForeignOutcomes({
      redis,
      keys: k,
      prefix,
      historyLimit: 100,
      logger: silent,
      options: resolveForeignOutcomesOptions({}),
      connection: redisTarget(REDIS_URL),
    });
    expect(await follower.reconcile()).toBe(0);
    expect(armed).toBe(false);
    expect((follower as unknown as { listeners: Map<string, unknown> }).listeners.size).toBe(0);
    expect(await redis.hget(k.record('s', '1000'), 'outcome')).toBe('succeeded');
    await follower.stop();
    await moved.quit();
  });

  it("a followed queue's outcomes: over the completion's record, a first record only for this deployment's job", async () => {
    env = testEnv('foreign-first');
    const { redis, prefix, queue } = env;
    const k = keys(prefix);
    const enqueued = occurrenceJobId('s', 1000); // its completion wrote `enqueued` already
    await enqueuedRecord(redis, k, queue, enqueued, 'kind', 'scheduled');
    const first = occurrenceJobId('s', 2000); // finished before its completion: no record yet
    const foreign = occurrenceJobId('s', 3000); // the same id scheme, another deployment's job
    const follower = new ForeignOutcomes({
      redis,
      keys: k,
      prefix,
      historyLimit: 100,
      logger: silent,
      options: resolveForeignOutcomesOptions({ gatherMs: 10 }),
      connection: redisTarget(REDIS_URL),
    });
    await follower.watch(queue);
    const q = new Queue(queue, { connection });
    await q.add('tick', { prefix, kind: 'scheduled' }, { jobId: enqueued });
    await q.add('tick', { prefix, kind: 'catch-up' }, { jobId: first });
    await q.add('tick', { prefix: 'another-deployment', kind: 'scheduled' }, { jobId: foreign });
    await q.close();
    plainWorker(queue, () => 'ok');
    await waitUntil(async () => (await redis.hget(k.record('s', '2000'), 'outcome')) === 'succeeded', 10_000);
    await waitUntil(async () => (await redis.hget(k.record('s', '1000'), 'outcome')) === 'succeeded', 10_000);
    await follower.stop();
    expect(await redis.hget(k.record('s', '1000'), 'consumer')).toBe('foreign');
    expect(await redis.hget(k.record('s', '2000'), 'kind')).toBe('catch-up'); // from its job's data
    expect(await redis.exists(k.record('s', '3000'))).toBe(0);
    expect(await redis.zrange(k.runIndex('s'), '0', '-1')).toEqual(['1000', '2000']);
    expect(await redis.hget(k.counts('s'), 'runs')).toBe('2');
  });

  it('a worker runtime says which queues it consumes, while it runs', async () => {
    env = testEnv('foreign-announce');
    const m = env.manager();
    m.every(60, { id: 'own' })(async function own() {});
    handle = await createWorker(m, { logger: silent });
    const k = keys(env.prefix);
    const until = Number(await env.redis.hget(k.runtimeQueues, env.queue));
    expect(until).toBeGreaterThan(Date.now() + 20_000);
  });
});
