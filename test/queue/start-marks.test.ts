// Start marks (start-runs-1, `taken:<id>`): an occurrence that two enqueuers may add (one whose claim
// was taken over; a backfill's, owed and perhaps swept) runs once however much of its history and of
// BullMQ's jobs is gone: the add that starts first is marked, and a later add of the same job id is
// refused at its start, with a `skipped` record (reason `ran-already`) where none says more.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import { type Keys, keys, occurrenceField } from '../../src/store/keys/keys.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { BACKFILL_LEDGER_TTL_MS } from '../../src/store/runs/backfill-ledger.js';
import { ScheduleScripts } from '../../src/store/scripts/schedule-scripts.js';
import { waitUntil } from '../wait-until.js';
import { TestBed } from './helpers.js';
import { StandInScheduler } from './stand-in-scheduler.js';

const silent = pino({ level: 'silent' });
let bed: TestBed;
let handle: WorkerHandle | undefined;

afterEach(async () => {
  await handle?.close({ graceMs: 1000 });
  handle = undefined;
  await bed.cleanup();
});

async function setup() {
  bed = new TestBed();
  const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]);
  const runs = { count: 0 };
  scheduler.register('report', () => {
    runs.count++;
  });
  handle = await createWorker(scheduler, { queues: [bed.queueName], logger: silent });
  await handle.ready();
  const k = keys(bed.prefix);
  return { runs, k, history: new RunHistory(bed.redis, k), scripts: new ScheduleScripts(bed.redis) };
}

/** Wait for a job to settle and answer its return value. */
async function settled(id: string | undefined): Promise<unknown> {
  await waitUntil(async () => {
    const s = await bed.queue.getJobState(id as string);
    return s === 'completed' || s === 'failed' ? s : undefined;
  }, 15_000);
  return (await bed.queue.getJob(id as string))?.returnvalue;
}

/** The record trimmed away, as `historyLimit` does once newer occurrences are recorded. */
async function trim(k: Keys, id: string, field: string): Promise<void> {
  await bed.redis.del(k.record(id, field));
  await bed.redis.zrem(k.runIndex(id), field);
}

describe('start marks', () => {
  it('a taken-over occurrence: a stalled claimant’s add, after the job ran, left BullMQ and its record was trimmed, is refused', async () => {
    const { runs, k, history, scripts } = await setup();
    const field = occurrenceField(5_000);
    // the take-over enters it in the marks before it adds (nothing started it yet: add it)
    expect(await scripts.retake(k, { scheduleId: 'report', field, keptMs: BACKFILL_LEDGER_TTL_MS })).toBe(
      false,
    );
    const first = await bed.enqueue('report', { fireAt: 5_000, opts: { removeOnComplete: true } });
    await waitUntil(
      async () => runs.count === 1 && (await bed.queue.getJob(first.id as string)) === undefined,
      15_000,
    );
    expect(await bed.redis.hget(k.taken('report'), field)).toBe(String(first.timestamp));
    await trim(k, 'report', field);

    // the stalled claimant wakes up and adds the same job id: a new add
    const again = await bed.enqueue('report', { fireAt: 5_000 });
    expect(again.id).toBe(first.id);
    expect(await settled(again.id)).toEqual({ ranAlready: true });
    expect(runs.count).toBe(1);
    expect(await history.get('report', 5_000)).toMatchObject({ outcome: 'skipped', reason: 'ran-already' });
    expect(await history.counts('report')).toMatchObject({ runs: 1, skipped: 1 });
  });

  it('a take-over that finds the lapsed claimant’s job started adds nothing, and a later add is refused', async () => {
    const { runs, k, scripts } = await setup();
    const field = occurrenceField(6_000);
    const first = await bed.enqueue('report', { fireAt: 6_000, opts: { removeOnComplete: true } });
    await waitUntil(
      async () => runs.count === 1 && (await bed.queue.getJob(first.id as string)) === undefined,
      15_000,
    );
    expect(await scripts.retake(k, { scheduleId: 'report', field, keptMs: BACKFILL_LEDGER_TTL_MS })).toBe(
      true,
    );
    expect(await bed.redis.hget(k.taken('report'), field)).toBe('-');
    await trim(k, 'report', field);
    const again = await bed.enqueue('report', { fireAt: 6_000 });
    expect(await settled(again.id)).toEqual({ ranAlready: true });
    expect(runs.count).toBe(1);
  });

  it('a backfilled occurrence is marked at its first start: another add (its sweep’s, its woken taker’s) is refused', async () => {
    const { runs, k, history } = await setup();
    const field = occurrenceField(7_000, 'backfill');
    const jobId = 'bb-report-b7000';
    const first = await bed.enqueue('report', {
      fireAt: 7_000,
      kind: 'backfill',
      opts: { jobId, removeOnComplete: true },
    });
    await waitUntil(async () => runs.count === 1 && (await bed.queue.getJob(jobId)) === undefined, 15_000);
    expect(await bed.redis.hget(k.taken('report'), field)).toBe(String(first.timestamp));
    expect(await bed.redis.pttl(k.taken('report'))).toBeGreaterThan(BACKFILL_LEDGER_TTL_MS - 60_000);
    await trim(k, 'report', field);
    const again = await bed.enqueue('report', { fireAt: 7_000, kind: 'backfill', opts: { jobId } });
    expect(await settled(again.id)).toEqual({ ranAlready: true });
    expect(runs.count).toBe(1);
    expect(await history.get('report', 7_000, 'backfill')).toMatchObject({
      outcome: 'skipped',
      reason: 'ran-already',
    });
  });
});
