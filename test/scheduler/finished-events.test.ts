// The reader of a queue's event stream for foreign outcomes: from the stream's end at start, only
// `completed` / `failed` events, in batches gathered over `gatherMs`, and a close that cuts a blocked read.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { type FinishedEvent, FinishedEventsReader } from '../../src/scheduler/outcomes/finished-events.js';
import { REDIS } from '../redis-url.js';
import { waitUntil } from '../wait-until.js';

const redis = new Redis(REDIS);
let reader: FinishedEventsReader | undefined;
let key = '';

afterEach(async () => {
  await reader?.close();
  reader = undefined;
  await redis.del(key);
});

async function started(gatherMs: number, batches: FinishedEvent[][], errors: unknown[] = []) {
  key = `test-events-${randomUUID()}`;
  await redis.xadd(key, '*', 'event', 'completed', 'jobId', 'before-start');
  reader = new FinishedEventsReader(
    new Redis(REDIS),
    key,
    'q',
    gatherMs,
    (events) => batches.push(events),
    (err) => errors.push(err),
  );
  await reader.start();
}

describe('FinishedEventsReader', () => {
  it('reads from the end at start, only completed and failed, with the failure reason', async () => {
    const batches: FinishedEvent[][] = [];
    const errors: unknown[] = [];
    await started(0, batches, errors);
    await redis.xadd(key, '*', 'event', 'active', 'jobId', 'a', 'prev', 'waiting');
    await redis.xadd(key, '*', 'event', 'completed', 'jobId', 'a', 'returnvalue', 'null');
    await redis.xadd(key, '*', 'event', 'failed', 'jobId', 'b', 'failedReason', 'boom', 'prev', 'active');
    await redis.xadd(key, '*', 'event', 'drained');
    await waitUntil(() => batches.flat().length >= 2, 5000, { stepMs: 10 });
    expect(batches.flat()).toEqual([
      { queue: 'q', jobId: 'a', state: 'completed' },
      { queue: 'q', jobId: 'b', state: 'failed', failedReason: 'boom' },
    ]);
    expect(errors).toEqual([]);
  });

  it('a trickle is read in batches gathered over gatherMs, none lost', async () => {
    const batches: FinishedEvent[][] = [];
    await started(300, batches);
    // 30 events, one every ~10 ms: without gathering about one read each
    const from = performance.now();
    for (let i = 0; i < 30; i++) {
      await redis.xadd(key, '*', 'event', 'completed', 'jobId', `j${i}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const trickleMs = performance.now() - from;
    await waitUntil(() => batches.flat().length >= 30, 5000, { stepMs: 10 });
    expect(batches.flat().map((e) => e.jobId)).toEqual(Array.from({ length: 30 }, (_, i) => `j${i}`));
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
    await redis.xadd(key, '*', 'event', 'completed', 'jobId', 'after-close');
    await new Promise((r) => setTimeout(r, 50));
    expect(batches).toEqual([]);
    expect(errors).toEqual([]);
  });
});
