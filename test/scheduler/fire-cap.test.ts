// The deployment-wide fire-rate cap (`maxFiresPerSecond`) on manual time: 1,000 schedules aligned on one
// instant, fired by two replicas with a cap of 100 per second, become runnable over 10 seconds, never
// more than 100 in one second, none coalesced or missed, each delayed one recorded with its delay.
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { REDIS_URL, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

const COUNT = 1000;
const CAP = 100;
const ids = Array.from({ length: COUNT }, (_, i) => `aligned-${i}`);

describe('maxFiresPerSecond', () => {
  it('smooths an aligned burst to the cap across two replicas, recording each delay', async () => {
    const env = testEnv('fire-cap');
    const time = new ManualTime(env.redis, env.prefix);
    const queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
    try {
      await time.start();
      const replicas = [env.manager({ maxFiresPerSecond: CAP }), env.manager({ maxFiresPerSecond: CAP })];
      for (const m of replicas) {
        time.attach(m);
        for (const id of ids) m.schedule(() => {}, new CronTrigger('* * * * *'), { id, name: id });
      }
      await Promise.all(replicas.map((m) => m.start()));
      const top = Math.ceil((time.now() + 1) / 60_000) * 60_000;
      await time.advance(top - time.now() - 1);
      const runnable = async () => {
        const flat = await env.redis.zrange(queue.keys.delayed as string, '0', '-1', 'WITHSCORES');
        const waiting = await env.redis.lrange(queue.keys.wait as string, 0, -1);
        const at = new Map<string, number>();
        for (let i = 0; i + 1 < flat.length; i += 2) at.set(flat[i]!, Math.floor(Number(flat[i + 1]) / 4096));
        for (const id of waiting) at.set(id, top); // added runnable at once: inside the first second
        return at;
      };
      await time.advanceUntil(async () => (await runnable()).size >= COUNT, 20_000, 50);
      const at = await runnable();
      await Promise.all(replicas.map((m) => time.stop(m)));

      const perSecond = new Map<number, number>();
      for (const id of ids) {
        const t = at.get(occurrenceJobId(id, top));
        expect(t, id).toBeDefined();
        const s = Math.floor(((t as number) - top) / 1000);
        perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
      }
      expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(CAP);
      expect([...perSecond.keys()].sort((a, b) => a - b)).toEqual(
        Array.from({ length: COUNT / CAP }, (_, i) => i),
      );

      // every one enqueued (none coalesced, none missed), the delayed ones with their delay
      const records = (await Promise.all(ids.map((id) => replicas[0]!.history.get(id, top)))).map((r, i) => ({
        r,
        id: ids[i]!,
      }));
      let delayed = 0;
      for (const { r, id } of records) {
        expect(r?.outcome, id).toBe('enqueued');
        const fires = at.get(occurrenceJobId(id, top)) as number;
        if (fires > top) {
          delayed++;
          expect(r?.capDelayMs, id).toBe(fires - top);
        } else expect(r?.capDelayMs).toBeUndefined();
      }
      expect(delayed).toBeGreaterThanOrEqual(COUNT - CAP);
      console.log(`fire cap: ${JSON.stringify([...perSecond])} delayed ${delayed}`);
    } finally {
      await time.stopAll();
      await queue.close();
      await env.cleanup();
    }
  }, 300_000);
});
