// Exactly once without keeping finished jobs: an occurrence whose job ran and was removed (the
// schedule's own `removeOnComplete`) and is then enqueued again under the same job id (a claimant that
// stalled past its lease wakes after the take-over ran it) is refused by its record, not by BullMQ.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import { keys } from '../../src/store/keys/keys.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
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

describe('an occurrence enqueued again after its job left BullMQ', () => {
  it('is refused by its record: the handler ran once, the record and counters are the first run', async () => {
    bed = new TestBed();
    const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]);
    let runs = 0;
    scheduler.register('report', () => {
      runs++;
    });
    handle = await createWorker(scheduler, { queues: [bed.queueName], logger: silent });
    await handle.ready();
    const history = new RunHistory(bed.redis, keys(bed.prefix));

    const first = await bed.enqueue('report', { fireAt: 5_000, opts: { removeOnComplete: true } });
    await waitUntil(
      async () => (runs === 1 && (await bed.queue.getJob(first.id as string)) === undefined) || undefined,
      15_000,
    );
    const ran = await history.get('report', 5_000);
    expect(ran).toMatchObject({ outcome: 'succeeded', jobId: first.id, attempts: 1 });

    // the same occurrence, the same job id: BullMQ no longer knows it, so it takes it as new
    const again = await bed.enqueue('report', { fireAt: 5_000, opts: { removeOnComplete: false } });
    expect(again.id).toBe(first.id);
    const state = await waitUntil(async () => {
      const s = await bed.queue.getJobState(again.id as string);
      return s === 'completed' || s === 'failed' ? s : undefined;
    }, 15_000);
    expect(state).toBe('completed');
    expect((await bed.queue.getJob(again.id as string))?.returnvalue).toEqual({ ranAlready: true });
    expect(runs).toBe(1);
    expect(await history.get('report', 5_000)).toEqual(ran);
    expect(await history.counts('report')).toMatchObject({ runs: 1, skipped: 0 });

    expect(await history.list('report')).toHaveLength(1);
  });
});
