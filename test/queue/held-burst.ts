// A burst for the outcome hold's tests (`tuning.outcomeHoldMs`): a worker of 2 slots and JOBS
// one-at-a-time schedules, one job each, 20 ms of work: jobs wait on the queue for ~0.4 s, less than
// the hold (1000 ms) the tests give, so a held outcome waits for the burst's end.
import pino from 'pino';
import { createWorker } from '../../src/queue/create-worker.js';
import { keys } from '../../src/store/keys/keys.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { waitUntil } from '../wait-until.js';
import type { TestBed } from './helpers.js';
import { StandInScheduler } from './stand-in-scheduler.js';

export const JOBS = 40;
export const FIRE_AT = 1_000;

/** Enqueue the burst's jobs on `bed`'s queue and start the worker that runs them. */
export async function startBurst(bed: TestBed, outcomeHoldMs: number) {
  const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]);
  scheduler.register('tick', () => new Promise((r) => setTimeout(() => r('ok'), 20)));
  const jobs = await Promise.all(
    Array.from({ length: JOBS }, (_, i) => bed.enqueue('tick', { scheduleId: `s${i}`, fireAt: FIRE_AT })),
  );
  const history = new RunHistory(bed.redis, keys(bed.prefix));
  const handle = await createWorker(scheduler, {
    queues: [bed.queueName],
    concurrency: 2,
    logger: pino({ level: 'silent' }),
    tuning: { outcomeHoldMs },
  });
  return { jobs, history, handle };
}

/** Every job of the burst settled in BullMQ, and every outcome written. */
export async function burstSettled(
  bed: TestBed,
  { jobs, history }: Pick<Awaited<ReturnType<typeof startBurst>>, 'jobs' | 'history'>,
): Promise<void> {
  await bed.allSettled(jobs.map((j) => j.id));
  await waitUntil(
    async () => {
      const records = await Promise.all(jobs.map((_, i) => history.get(`s${i}`, FIRE_AT)));
      return records.every((r) => r?.outcome === 'succeeded');
    },
    20_000,
    { what: 'every outcome written' },
  );
}
