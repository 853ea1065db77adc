import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pino from 'pino';
import type { SchedulerManagerOptions } from '../../src/scheduler/contract/scheduler-manager-options.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import type { ScheduleDefinition } from '../../src/store/forms/definition-schema.js';
import type { Trigger } from '../../src/triggers/trigger.js';
import { REDIS_URL } from '../redis-url.js';

export { REDIS_URL } from '../redis-url.js';
export const silent = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** A unique prefix and queue name for one test, and everything to clean up after it. */
export function testEnv(tag: string) {
  const id = `${tag}-${randomUUID().slice(0, 8)}`;
  const prefix = `t-${id}`;
  const queue = `q-${id}`;
  const managers: SchedulerManager[] = [];
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  return {
    prefix,
    queue,
    redis,
    manager(options: SchedulerManagerOptions = {}): SchedulerManager {
      const m = new SchedulerManager({
        prefix,
        defaultQueue: queue,
        connection: REDIS_URL,
        logger: silent,
        // these tests count occurrences enqueued with no consumer: backpressure (which holds back an
        // occurrence while the previous one waits) is tested on its own, in backpressure.test.ts
        backpressure: false,
        ...options,
      });
      managers.push(m);
      return m;
    },
    /** BullMQ job ids on the test queue (every state). */
    async jobIds(name = queue): Promise<string[]> {
      const q = new Queue(name, { connection: { url: REDIS_URL } });
      const jobs = await q.getJobs(['wait', 'active', 'completed', 'failed', 'delayed', 'prioritized']);
      await q.close();
      return jobs.filter((j) => j !== undefined).map((j) => j.id as string);
    },
    async cleanup(): Promise<void> {
      await Promise.all(managers.map((m) => m.stop().catch(() => undefined)));
      await Promise.all(managers.map((m) => m.close().catch(() => undefined)));
      for (const pattern of [`{${prefix}}*`, `bull:${queue}*`]) {
        let cursor = '0';
        do {
          const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          cursor = next;
          if (batch.length > 0) await redis.unlink(...batch);
        } while (cursor !== '0');
      }
      await redis.quit();
    },
  };
}

/** A custom trigger: every `ms` on a grid anchored at 0 (any object with nextFire is a trigger). */
export function everyMs(ms: number): Trigger {
  return {
    nextFire(lastFire: number | null, now: number): number {
      const t = lastFire ?? now;
      return t - (t % ms) + ms;
    },
  };
}

/** Redis TIME in ms. */
export async function redisNow(redis: Redis): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** A resolved schedule definition with the defaults (a custom trigger), for the pure planning tests. */
export function definition(over: Partial<ScheduleDefinition> = {}): ScheduleDefinition {
  return {
    id: 's',
    name: 's',
    queue: 'q',
    source: 'code',
    trigger: { type: 'custom', kind: 'Object' },
    args: [],
    run: { maxInstances: 1, overlap: 'skip', slot: { mode: 'skip', cap: 1 } },
    attempts: 1,
    misfire: 'once',
    misfireGraceMs: 60_000,
    maxCatchUp: 1000,
    ...over,
  };
}
