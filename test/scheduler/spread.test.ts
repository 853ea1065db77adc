// Deterministic spread at scale, on manual time (the fire loops' clock and Redis's, see manual-time.ts):
// 10,000 `* * * * *` schedules with spread '30s' are claimed at the top of the minute and fire over
// the next 30 s, each at the offset its id gives, the same after a restart, their records at the
// nominal time. A "fire" is the instant BullMQ makes the job runnable: its delayed score.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import { spreadOffsetMs } from '../../src/store/forms/spread.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { REDIS_URL, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

const COUNT = 10_000;
const SPREAD_MS = 30_000;
const ids = Array.from({ length: COUNT }, (_, i) => `tenant-${i}`);

/** Delayed jobs of `queue` due in `[from, from + 60 s)`: job id -> the instant BullMQ makes it runnable. */
async function delayedIn(redis: Redis, queue: Queue, from: number): Promise<Map<string, number>> {
  const flat = await redis.zrangebyscore(
    queue.keys.delayed as string,
    from * 4096,
    (from + 60_000) * 4096,
    'WITHSCORES',
  );
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < flat.length; i += 2) out.set(flat[i]!, Math.floor(Number(flat[i + 1]) / 4096));
  return out;
}

describe('spread', () => {
  it('10,000 aligned schedules fire spread over 30 s at stable offsets, nominal times in the records', async () => {
    const env = testEnv('spread');
    const time = new ManualTime(env.redis, env.prefix);
    const queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
    try {
      await time.start();
      const define = (m: ReturnType<typeof env.manager>) => {
        const fn = () => {};
        for (const id of ids) m.schedule(fn, new CronTrigger('* * * * *'), { id, name: id, spread: '30s' });
      };
      // one minute: started just before the top of a minute, moved past it until every job is staged
      const minute = async (m: ReturnType<typeof env.manager>) => {
        time.attach(m);
        define(m);
        await m.start();
        const top = Math.ceil((time.now() + 1) / 60_000) * 60_000;
        await time.advance(top - time.now() - 1);
        await time.advanceUntil(
          async () => (await delayedIn(env.redis, queue, top)).size >= COUNT,
          20_000,
          50,
        );
        const fires = await delayedIn(env.redis, queue, top);
        await time.stop(m);
        return { top, fires };
      };

      const first = await minute(env.manager());
      expect(first.fires.size).toBe(COUNT);
      const perSecond = new Array<number>(SPREAD_MS / 1000).fill(0);
      for (const id of ids) {
        const at = first.fires.get(occurrenceJobId(id, first.top)); // the job id names the nominal time
        expect(at, id).toBeDefined();
        const offset = (at as number) - first.top;
        expect(offset).toBe(spreadOffsetMs(id, SPREAD_MS));
        expect(offset).toBeGreaterThanOrEqual(0);
        expect(offset).toBeLessThan(SPREAD_MS);
        perSecond[Math.floor(offset / 1000)]!++;
      }
      const mean = COUNT / perSecond.length;
      expect(Math.max(...perSecond)).toBeLessThanOrEqual(2 * mean);
      expect(Math.min(...perSecond)).toBeGreaterThan(0);

      // a restart (a new manager on the same deployment): the next minute, the same offsets
      const second = await minute(env.manager());
      expect(second.top).toBeGreaterThan(first.top);
      for (const id of ids) {
        const before = (first.fires.get(occurrenceJobId(id, first.top)) as number) - first.top;
        const after = second.fires.get(occurrenceJobId(id, second.top));
        expect(after, id).toBe(second.top + before);
      }

      // the records are at the nominal times
      const reader = env.manager();
      for (const id of ids.slice(0, 200)) {
        const records = await reader.history(id);
        expect(records.map((r) => r.fireAt).sort()).toEqual([first.top, second.top]);
        expect(records.every((r) => r.outcome === 'enqueued')).toBe(true);
      }
      // eslint-disable-next-line no-console
      console.log(
        `spread: busiest second ${Math.max(...perSecond)}, quietest ${Math.min(...perSecond)}, mean ${mean}`,
      );
    } finally {
      await time.stopAll();
      await queue.close();
      await env.cleanup();
    }
  }, 600_000);

  it('a pause reaches an occurrence waiting for its offset: the job leaves BullMQ, recorded missed', async () => {
    const env = testEnv('spread-pause');
    const time = new ManualTime(env.redis, env.prefix);
    const queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
    try {
      await time.start();
      const m = env.manager();
      time.attach(m);
      const id = 'late-by-design';
      m.schedule(() => {}, new CronTrigger('* * * * *'), { id, name: id, spread: '55s' });
      await m.start();
      const top = Math.ceil((time.now() + 1) / 60_000) * 60_000;
      await time.advance(top - time.now() - 1);
      await time.advanceUntil(async () => (await delayedIn(env.redis, queue, top)).size === 1, 5_000, 10);
      const jobId = occurrenceJobId(id, top);
      expect((await delayedIn(env.redis, queue, top)).get(jobId)).toBe(top + spreadOffsetMs(id, 55_000));
      await m.pause(id);
      expect((await delayedIn(env.redis, queue, top)).size).toBe(0);
      const record = (await m.history(id)).find((r) => r.fireAt === top);
      expect(record).toMatchObject({ outcome: 'missed', reason: 'paused' });
    } finally {
      await time.stopAll();
      await queue.close();
      await env.cleanup();
    }
  }, 120_000);
});
