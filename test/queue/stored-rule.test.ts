// The worker runs each job under the overlap rule the job carries (`run.slot`, resolved when its
// schedule was defined), never one derived again from the fields beside it; a job of an earlier
// release (no `slot`) still runs, under the rule that release gave its fields (read once, on receipt).
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import type { RunContext } from '../../src/queue/pipeline.js';
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

/**
 * A worker of 4 slots whose handler `name` waits for the gate; the history to read its records, and
 * `started(fireAt)`: the run of `fireAt` is in hand (its handler was called, after its start check
 * took its slot), sooner than its `running` record, which is written behind (`recordLagMs`).
 */
async function setup(name: string) {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const fireAts: number[] = [];
  bed = new TestBed();
  const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]);
  scheduler.register(name, (ctx: RunContext) => {
    fireAts.push(ctx.fireAt);
    return gate;
  });
  handle = await createWorker(scheduler, { queues: [bed.queueName], concurrency: 4, logger: silent });
  await handle.ready();
  const started = (fireAt: number) =>
    waitUntil(() => fireAts.includes(fireAt), 10_000, { what: `the run of ${fireAt} started` });
  return { history: new RunHistory(bed.redis, keys(bed.prefix)), release, started };
}

async function settled(jobId: string | undefined) {
  return waitUntil(async () => {
    const state = await bed.queue.getJobState(jobId as string);
    return state === 'completed' || state === 'failed' ? state : undefined;
  });
}

describe('the overlap rule a job carries', () => {
  it('is the one the run slot is taken under, whatever the fields beside it would give', async () => {
    const { history, release, started } = await setup('wide');
    // maxInstances 1 would allow one run at a time; the stored rule says two
    const run = { maxInstances: 1, overlap: 'skip' as const, slot: { mode: 'skip', cap: 2 } };
    const first = await bed.enqueue('wide', { fireAt: 1, run });
    const second = await bed.enqueue('wide', { fireAt: 2, run });
    await started(1);
    await started(2);
    const third = await bed.enqueue('wide', { fireAt: 3, run });
    expect(await settled(third.id)).toBe('completed');
    expect(await history.get('wide', 3)).toMatchObject({ outcome: 'skipped', reason: 'overlap' });
    release();
    expect([await settled(first.id), await settled(second.id)]).toEqual(['completed', 'completed']);
    expect(await history.get('wide', 2)).toMatchObject({ outcome: 'succeeded' });
  });

  it('of an earlier release (maxInstances and coalesce, no slot) still runs, under that release rule', async () => {
    const { history, release, started } = await setup('old');
    const earlier = { maxInstances: 1, coalesce: true };
    const first = await bed.enqueue('old', { fireAt: 1, run: earlier });
    await started(1);
    const second = await bed.enqueue('old', { fireAt: 2, run: earlier });
    expect(await settled(second.id)).toBe('completed');
    expect(await history.get('old', 2)).toMatchObject({ outcome: 'skipped', reason: 'overlap' });
    // coalesce off and maxInstances 0: no limit and no lease, as that release read it
    const free = await bed.enqueue('old', { fireAt: 3, run: { maxInstances: 0, coalesce: false } });
    await started(3);
    expect(await bed.redis.zcard(keys(bed.prefix).lease('old'))).toBe(1); // the first run's lease alone
    release();
    expect([await settled(first.id), await settled(free.id)]).toEqual(['completed', 'completed']);
    expect(await history.get('old', 1)).toMatchObject({ outcome: 'succeeded' });
    expect(await history.get('old', 3)).toMatchObject({ outcome: 'succeeded' });
  });
});
