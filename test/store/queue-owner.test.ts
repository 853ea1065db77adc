// A deployment's hold on a BullMQ queue (src/store/bullmq/queue-owner.ts) against a real Redis: a
// worker's graceful close lets it go at once (`release-queue-1`, compare-and-delete), but never a hold
// another deployment took meanwhile.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { holdQueue, QUEUE_HOLD_MS, queueOwnerKey, releaseQueue } from '../../src/store/bullmq/queue-owner.js';
import { REDIS } from '../redis-url.js';

const redis = new Redis(REDIS);
const queue = `owner-${randomUUID().slice(0, 8)}`;
const key = queueOwnerKey(undefined, queue);

afterAll(async () => {
  await redis.del(key);
  await redis.quit();
});

describe('the hold on a queue', () => {
  it('is released by its own deployment at once, and left alone when another holds it', async () => {
    await holdQueue(redis, undefined, queue, 'alpha');
    expect(await redis.get(key)).toBe('alpha');
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(QUEUE_HOLD_MS);
    await expect(holdQueue(redis, undefined, queue, 'beta')).rejects.toBeInstanceOf(ConfigError);
    // another deployment's release does nothing
    await releaseQueue(redis, undefined, queue, 'beta');
    expect(await redis.get(key)).toBe('alpha');
    await releaseQueue(redis, undefined, queue, 'alpha');
    expect(await redis.exists(key)).toBe(0);
    // free again: the other deployment takes it
    await holdQueue(redis, undefined, queue, 'beta');
    expect(await redis.get(key)).toBe('beta');
  });
});
