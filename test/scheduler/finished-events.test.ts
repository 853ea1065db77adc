// The reader of a queue's event stream for foreign outcomes: from the stream's end at start, only
// occurrences' `completed` / `failed` events with their jobs' outcome fields, in batches gathered over
// `gatherMs`, and a close that cuts a blocked read.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { type FinishedEvent, FinishedEventsReader } from '../../src/scheduler/outcomes/finished-events.js';
import { REDIS } from '../redis-url.js';
import { waitUntil } from '../wait-until.js';

const redis = new Redis(REDIS);
let reader: FinishedEventsReader | undefined;
let key = '';
let jobBase = '';

afterEach(async () => {
  await reader?.close();
  reader = undefined;
  const jobs = jobBase ? await redis.keys(`${jobBase}*`) : [];
  await redis.del(key, ...jobs);
});

/** No job fields: the job hash is gone (or was never written). */
const NO_FIELDS = [null, null, null, null, null];

async function started(gatherMs: number, batches: FinishedEvent[][], errors: unknown[] = []) {
  const base = `test-events-${randomUUID()}`;
  key = `${base}:events`;
  jobBase = `${base}:`;
  await redis.xadd(key, '*', 'event', 'completed', 'jobId', 'bb-s-1');
  reader = new FinishedEventsReader(
    new Redis(REDIS),
    { events: key, jobBase },
    'q',
    gatherMs,
    (events) => batches.push(events),
    (err) => errors.push(err),
  );
  await reader.start();
}

describe('FinishedEventsReader', () => {
  it("reads from the end at start, only occurrences' completed and failed, with the failure reason and the job's fields", async () => {
    const batches: FinishedEvent[][] = [];
    const errors: unknown[] = [];
    await started(0, batches, errors);
    await redis.hset(`${jobBase}bb-s-2`, { processedOn: 10, finishedOn: 15, atm: 1, data: '{}' });
    await redis.hset(`${jobBase}bb-s-3`, {
      processedOn: 20,
      finishedOn: 25,
      attemptsMade: 3,
      failedReason: 'bang',
    });
    await redis.xadd(key, '*', 'event', 'active', 'jobId', 'bb-s-2', 'prev', 'waiting');
    await redis.xadd(key, '*', 'event', 'completed', 'jobId', 'bb-s-2', 'returnvalue', 'null');
    await redis.xadd(key, '*', 'event', 'completed', 'jobId', 'not-an-occurrence', 'returnvalue', 'null');
    await redis.xadd(
      key,
      '*',
      'event',
      'failed',
      'jobId',
      'bb-s-3',
      'failedReason',
      'boom',
      'prev',
      'active',
    );
    await redis.xadd(key, '*', 'event', 'failed', 'jobId', 'bb-s-4', 'prev', 'active');
    await redis.xadd(key, '*', 'event', 'drained');
    await waitUntil(() => batches.flat().length >= 3, 5000, { stepMs: 10 });
    expect(batches.flat()).toEqual([
      { queue: 'q', jobId: 'bb-s-2', state: 'completed', fields: ['10', '15', '1', null, null] },
      {
        queue: 'q',
        jobId: 'bb-s-3',
        state: 'failed',
        failedReason: 'boom',
        fields: ['20', '25', null, '3', 'bang'],
      },
      { queue: 'q', jobId: 'bb-s-4', state: 'failed', failedReason: undefined, fields: NO_FIELDS },
    ]);
    expect(errors).toEqual([]);
  });

  it('a read of many entries is answered in order, in reads of at most 1,000, and the reader then waits for more', async () => {
    const batches: FinishedEvent[][] = [];
    await started(0, batches);
    const pipe = redis.pipeline();
    for (let i = 0; i < 2500; i++) {
      pipe.xadd(key, '*', 'event', 'added', 'jobId', `bb-s-${i}`);
      pipe.xadd(key, '*', 'event', 'completed', 'jobId', `bb-s-${i}`);
    }
    await pipe.exec();
    await waitUntil(() => batches.flat().length >= 2500, 10_000, { stepMs: 10 });
    expect(batches.flat().map((e) => e.jobId)).toEqual(Array.from({ length: 2500 }, (_, i) => `bb-s-${i}`));
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(500); // 1,000 entries a read
    // idle now (blocked on the stream); one more entry is read at once
    await new Promise((r) => setTimeout(r, 100));
    await redis.xadd(key, '*', 'event', 'completed', 'jobId', 'bb-s-last');
    await waitUntil(() => batches.flat().length === 2501, 5000, { stepMs: 10 });
    expect(batches.flat().at(-1)).toMatchObject({ jobId: 'bb-s-last', fields: NO_FIELDS });
  });

  it('a trickle is read in batches gathered over gatherMs, none lost', async () => {
    const batches: FinishedEvent[][] = [];
    await started(300, batches);
    // 30 events, one every ~10 ms: without gathering about one read each
    const from = performance.now();
    for (let i = 0; i < 30; i++) {
      await redis.xadd(key, '*', 'event', 'completed', 'jobId', `bb-s-j${i}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const trickleMs = performance.now() - from;
    await waitUntil(() => batches.flat().length >= 30, 5000, { stepMs: 10 });
    expect(batches.flat().map((e) => e.jobId)).toEqual(Array.from({ length: 30 }, (_, i) => `bb-s-j${i}`));
    // at most one read per 300 ms of the trickle (and the first, and the last's tail)
    expect(batches.length).toBeLessThanOrEqual(Math.ceil(trickleMs / 300) + 2);
    expect(batches.length).toBeLessThan(15);
  });

  it('close ends the reader: its connection is closed, nothing is reported as an error', async () => {
    const errors: unknown[] = [];
    const batches: FinishedEvent[][] = [];
    await started(0, batches, errors);
    const client = (reader as unknown as { client: Redis }).client;
    await reader!.close();
    reader = undefined;
    expect(client.status).toBe('end');
    await redis.xadd(key, '*', 'event', 'completed', 'jobId', 'bb-s-after-close');
    await new Promise((r) => setTimeout(r, 50));
    expect(batches).toEqual([]);
    expect(errors).toEqual([]);
  });
});
