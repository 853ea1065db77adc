import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { REDIS, REDIS_URL } from '../redis-url.js';

/**
 * A CLI test file's own prefix and queue in the test Redis, the env that points `bullbeat` at the
 * prefix (for `runBullbeat`), a client of the test Redis, and, after the file, everything removed.
 * Call it once, at the top of the file.
 */
export function cliTestBed(tag: string) {
  const prefix = `cli-${tag}-${randomUUID()}`;
  const queue = `cli-${tag}-q-${randomUUID()}`;
  const redis = new Redis(REDIS_URL);
  afterAll(async () => {
    const keys = await redis.keys(`{${prefix}}*`);
    if (keys.length) await redis.del(...keys);
    const q = new Queue(queue, { connection: REDIS });
    await q.obliterate({ force: true });
    await q.close();
    await redis.quit();
  });
  return { prefix, queue, env: { BULLBEAT_PREFIX: prefix }, redis };
}
