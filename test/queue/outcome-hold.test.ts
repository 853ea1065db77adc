// A success's outcome is written behind the burst it ran in (the worker's `tuning.outcomeHoldMs`, off by
// default, turned on here): on a worker whose every slot is taken, the run gives its slot back at once
// and BullMQ completes its job, while the outcome's write waits until no job waits on the queue (at
// most `outcomeHoldMs` after the oldest held one ended). Every outcome is written in the end, with the
// run's own finishedAt; a graceful close writes the held ones. The burst is held-burst.ts's.
import { Worker } from 'bullmq';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { whyDidntItRun } from '../../src/insight/why.js';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import type { RunContext } from '../../src/queue/pipeline.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import { keys } from '../../src/store/keys/keys.js';
import { activeRuns } from '../../src/store/reads/lease-store.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { REDIS, REDIS_URL } from '../redis-url.js';
import { waitUntil } from '../wait-until.js';
import { burstSettled, FIRE_AT, JOBS, startBurst } from './held-burst.js';
import { TestBed } from './helpers.js';
import { StandInScheduler } from './stand-in-scheduler.js';
import { WorkerProcess } from './worker-process.js';

const silent = pino({ level: 'silent' });
let bed: TestBed;
let handle: WorkerHandle | undefined;
let processes: WorkerProcess[] = [];

afterEach(async () => {
  await handle?.close({ graceMs: 1000 });
  handle = undefined;
  await Promise.all(processes.map((w) => w.stop()));
  processes = [];
  await bed.cleanup();
});

/** The burst (held-burst.ts), its worker kept for the afterEach. */
async function burst(outcomeHoldMs = 1000) {
  bed = new TestBed();
  const started = await startBurst(bed, outcomeHoldMs);
  handle = started.handle;
  return started;
}

/**
 * Watch the burst until some job is completed in BullMQ while its record is not `succeeded` yet and
 * jobs still wait on the queue: an outcome held behind the burst. Returns those schedule ids.
 */
async function heldDuringBurst(history: RunHistory, what = 'tick'): Promise<string[]> {
  let held: string[] = [];
  await waitUntil(
    async () => {
      const waiting = await bed.redis.llen(`bull:${bed.queueName}:wait`);
      const completed = new Set(await bed.redis.zrange(`bull:${bed.queueName}:completed`, '0', '-1'));
      if (waiting === 0 || completed.size === 0) return false;
      const ids = Array.from({ length: JOBS }, (_, i) => `s${i}`);
      const records = await Promise.all(ids.map((id) => history.get(id, FIRE_AT)));
      held = ids.filter((id, i) => {
        const jobId = `bb-${id}-${FIRE_AT}`;
        return completed.has(jobId) && records[i]?.outcome !== 'succeeded';
      });
      return held.length > 0;
    },
    20_000,
    { what: `a completed ${what} job whose outcome is held while jobs still wait`, stepMs: 5 },
  );
  return held;
}

/**
 * What time does to the jobs and run slots of a worker process that died (its SIGKILL awaited), without
 * waiting for it: its BullMQ job locks and its bullbeat leases lapse (nothing renews them any more),
 * and BullMQ's own stalled check, run twice as a live worker runs it every `stalledInterval` (the
 * first marks the active jobs, the next moves those whose lock is gone), moves its jobs back to wait.
 * Only the dead worker's are made to lapse: the live ones keep the defaults (30 s), which no load outlasts.
 */
async function deadWorkerLapses(bed: TestBed): Promise<void> {
  const active = await bed.redis.lrange(`bull:${bed.queueName}:active`, 0, -1);
  for (const jobId of active) {
    await bed.redis.del(`bull:${bed.queueName}:${jobId}:lock`);
    const lease = keys(bed.prefix).lease((/^bb-(.+)-\d+$/.exec(jobId) as RegExpExecArray)[1] as string);
    for (const leaseId of await bed.redis.zrange(lease, '0', '-1')) await bed.redis.zadd(lease, 1, leaseId);
  }
  const checker = new Worker(bed.queueName, undefined, { connection: REDIS, autorun: false });
  try {
    for (let pass = 0; pass < 2; pass++) {
      await bed.redis.del(`bull:${bed.queueName}:stalled-check`); // each pass's guard against a sooner one
      await (checker as unknown as { moveStalledJobsToWait(): Promise<void> }).moveStalledJobsToWait();
    }
  } finally {
    await checker.close();
  }
  expect(await bed.redis.llen(`bull:${bed.queueName}:active`)).toBe(0);
}

describe('a success written behind the burst', () => {
  it('gives its slot back at once, writes its outcome once no job waits, with the run’s own finishedAt', async () => {
    const { jobs, history } = await burst();
    const held = await heldDuringBurst(history);
    // the held runs hold no slot: the next occurrence of their schedule could start
    const live = await activeRuns(bed.redis, keys(bed.prefix), held);
    expect([...live.values()].filter((n) => n > 0)).toEqual([]);

    await burstSettled(bed, { jobs, history });
    for (let i = 0; i < JOBS; i++) {
      const record = await history.get(`s${i}`, FIRE_AT);
      const job = await bed.queue.getJob(jobs[i]?.id as string);
      expect(record).toMatchObject({ outcome: 'succeeded', attempts: 1, jobId: jobs[i]?.id });
      expect(await history.counts(`s${i}`)).toMatchObject({ runs: 1 });
      // the run's end, not the write's: after its start, and before BullMQ completed its job (the same
      // host's clock; Redis TIME and Date.now() agree within a millisecond or so)
      expect(record?.startedAt).toBeLessThanOrEqual(record?.finishedAt as number);
      expect(record?.finishedAt).toBeLessThanOrEqual((job?.finishedOn as number) + 20);
    }
  });

  it('off by default: a job BullMQ completed has its outcome written already, even in a burst', async () => {
    const { jobs, history } = await burst(0);
    let looked = 0;
    await waitUntil(
      async () => {
        // the completed set first: each job in it had its outcome written before BullMQ completed it
        const completed = await bed.redis.zrange(`bull:${bed.queueName}:completed`, '0', '-1');
        for (const jobId of completed) {
          const id = (/^bb-(.+)-\d+$/.exec(jobId) as RegExpExecArray)[1] as string;
          expect((await history.get(id, FIRE_AT))?.outcome, jobId).toBe('succeeded');
        }
        if ((await bed.redis.llen(`bull:${bed.queueName}:wait`)) > 0) looked++;
        return completed.length === JOBS;
      },
      20_000,
      { what: 'every job completed', stepMs: 5 },
    );
    expect(looked).toBeGreaterThan(0); // looked during the burst, jobs still waiting
    expect(jobs).toHaveLength(JOBS);
  });

  it('a graceful close writes the outcomes still held', async () => {
    const { jobs, history } = await burst();
    const held = await heldDuringBurst(history);
    await handle?.close({ graceMs: 5000 });
    handle = undefined;
    const completed = new Set(await bed.redis.zrange(`bull:${bed.queueName}:completed`, '0', '-1'));
    expect(completed.size).toBeGreaterThanOrEqual(held.length);
    for (let i = 0; i < JOBS; i++) {
      if (!completed.has(jobs[i]?.id as string)) continue;
      expect((await history.get(`s${i}`, FIRE_AT))?.outcome, `s${i}`).toBe('succeeded');
    }
  });

  it('a worker process SIGKILLed while it holds outcomes: those runs are not run again, and why says they ran', async () => {
    bed = new TestBed();
    // the default leases and BullMQ locks (30 s): no live run's lapses on a loaded box; the killed
    // worker's are made to lapse below (deadWorkerLapses)
    const flags = ['--concurrency', '2', '--tuning', 'outcomeHoldMs=1000'];
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const options = { prefix: bed.prefix, defaultQueue: bed.queueName, connection: REDIS_URL };
    // stored as custom triggers the asking manager does not define: why reads the latest record
    const owner = new SchedulerManager({ ...options, role: 'client', logger: silent });
    for (let i = 0; i < JOBS; i++) {
      owner.schedule({ name: 'graceful' }, { nextFire: () => Date.now() + 3_600_000 }, { id: `s${i}` });
    }
    const asker = new SchedulerManager({ ...options, role: 'client', logger: silent });
    /** The burst's schedules and records, made ready while the worker process boots. */
    const ready = async () => {
      await owner.start();
      // each occurrence's `enqueued` record, as the scheduler's completion writes it before any worker
      // takes the job
      for (let i = 0; i < JOBS; i++) {
        await history.merge(`s${i}`, FIRE_AT, false, {
          outcome: 'enqueued',
          kind: 'scheduled',
          queue: bed.queueName,
          jobId: occurrenceJobId(`s${i}`, FIRE_AT),
          enqueuedAt: FIRE_AT,
          replica: 'r1',
        });
      }
    };
    try {
      const [worker] = await Promise.all([
        WorkerProcess.start(bed.prefix, bed.queueName, flags).then((w) => {
          processes.push(w);
          return w;
        }),
        ready(),
      ]);
      const jobs = await Promise.all(
        Array.from({ length: JOBS }, (_, i) =>
          bed.enqueue('graceful', { scheduleId: `s${i}`, fireAt: FIRE_AT, args: [40, false] }),
        ),
      );
      const held = await heldDuringBurst(history, 'graceful');
      worker.child.kill('SIGKILL');
      await worker.exited;
      const started = async () =>
        (await bed.redis.lrange(`${bed.prefix}:test:started`, 0, -1)).map(
          (v) => JSON.parse(v) as { fireAt: number },
        ).length;
      const startedAtKill = await started();

      // a second worker finishes the rest: the killed one's active jobs come back by BullMQ's stalled
      // check, and their runs, lost with it, are run again once their leases have lapsed
      await deadWorkerLapses(bed);
      const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]);
      scheduler.register('graceful', async (ms: number, _ignoreSignal: boolean, ctx: RunContext) => {
        await bed.redis.rpush(`${bed.prefix}:test:started`, JSON.stringify({ fireAt: ctx.fireAt }));
        await new Promise((r) => setTimeout(r, ms));
      });
      handle = await createWorker(scheduler, { queues: [bed.queueName], concurrency: 2, logger: silent });
      await bed.allSettled(
        jobs.map((j) => j.id),
        60_000,
      );
      for (const id of held) {
        const i = Number(id.slice(1));
        // its job completed before the kill: not run again
        expect(await bed.queue.getJobState(jobs[i]?.id as string)).toBe('completed');
        const record = await history.get(id, FIRE_AT);
        expect(
          record?.outcome === 'enqueued' || record?.outcome === 'running',
          `${id}: ${record?.outcome}`,
        ).toBe(true);
        const why = await whyDidntItRun(asker, id);
        expect(why.summary).toBe('it ran: BullMQ completed it (its outcome is not recorded yet)');
        expect(why.cause).toBe(null);
      }
      // every run started once, but for those lost with the killed worker mid-run (each at most once more)
      expect(startedAtKill).toBeGreaterThan(0);
      expect(await started()).toBeLessThanOrEqual(JOBS + 2);
    } finally {
      await owner.close();
      await asker.close();
    }
  }, 120_000);
});
