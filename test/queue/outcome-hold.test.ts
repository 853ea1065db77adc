// A success's outcome is written behind the burst it ran in: on a worker whose every slot is taken,
// the run gives its slot back at once and BullMQ completes its job, while the outcome's write waits
// until no job waits on the queue (at most OUTCOME_HOLD_MS after the oldest held one ended). Every
// outcome is written in the end, with the run's own finishedAt; a graceful close writes the held ones.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import { keys } from '../../src/store/keys/keys.js';
import { activeRuns } from '../../src/store/reads/lease-store.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { waitUntil } from '../wait-until.js';
import { TestBed } from './helpers.js';
import { StandInScheduler } from './stand-in-scheduler.js';

const silent = pino({ level: 'silent' });
const JOBS = 40;
const FIRE_AT = 1_000;
let bed: TestBed;
let handle: WorkerHandle | undefined;

afterEach(async () => {
  await handle?.close({ graceMs: 1000 });
  handle = undefined;
  await bed.cleanup();
});

/** A worker of 2 slots and a burst of JOBS one-at-a-time schedules, one job each, 40 ms of work. */
async function burst() {
  bed = new TestBed();
  const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]);
  scheduler.register('tick', () => new Promise((r) => setTimeout(() => r('ok'), 40)));
  const jobs = await Promise.all(
    Array.from({ length: JOBS }, (_, i) => bed.enqueue('tick', { scheduleId: `s${i}`, fireAt: FIRE_AT })),
  );
  const history = new RunHistory(bed.redis, keys(bed.prefix));
  handle = await createWorker(scheduler, { queues: [bed.queueName], concurrency: 2, logger: silent });
  return { jobs, history };
}

/**
 * Watch the burst until some job is completed in BullMQ while its record is not `succeeded` yet and
 * jobs still wait on the queue: an outcome held behind the burst. Returns those schedule ids.
 */
async function heldDuringBurst(history: RunHistory): Promise<string[]> {
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
    { what: 'a completed job whose outcome is held while jobs still wait', stepMs: 5 },
  );
  return held;
}

describe('a success written behind the burst', () => {
  it('gives its slot back at once, writes its outcome once no job waits, with the run’s own finishedAt', async () => {
    const { jobs, history } = await burst();
    const held = await heldDuringBurst(history);
    // the held runs hold no slot: the next occurrence of their schedule could start
    const live = await activeRuns(bed.redis, keys(bed.prefix), held);
    expect([...live.values()].filter((n) => n > 0)).toEqual([]);

    await bed.allSettled(jobs.map((j) => j.id));
    await waitUntil(
      async () => {
        const records = await Promise.all(jobs.map((_, i) => history.get(`s${i}`, FIRE_AT)));
        return records.every((r) => r?.outcome === 'succeeded');
      },
      20_000,
      { what: 'every outcome written' },
    );
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
});
