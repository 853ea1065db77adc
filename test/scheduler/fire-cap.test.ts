// The deployment-wide fire-rate cap (`maxFiresPerSecond`) on manual time: 1,000 schedules aligned on one
// instant, fired by two replicas with a cap of 100 per second, become runnable over about 10 seconds,
// never more than 100 in one second, none coalesced or missed, each recorded with its delay. Counted
// from the records (fire time + `capDelayMs`), and checked against BullMQ: each job waits in the delayed
// set scored at exactly that instant, added before it, none runnable at once, so the instant a job
// becomes runnable is its slot and never the moment its add lands (which, in an aligned burst, can be
// a second later and doubled the next second's fires).
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
      const staged = async () => {
        const flat = await env.redis.zrange(queue.keys.delayed as string, '0', '-1', 'WITHSCORES');
        const at = new Map<string, number>();
        for (let i = 0; i + 1 < flat.length; i += 2) at.set(flat[i]!, Math.floor(Number(flat[i + 1]) / 4096));
        return at;
      };
      const records = async () => Promise.all(ids.map((id) => replicas[0]!.history.get(id, top)));
      await time.advanceUntil(
        async () => (await records()).every((r) => r?.outcome === 'enqueued'),
        20_000,
        50,
      );
      const at = await staged();
      const waiting = await env.redis.lrange(queue.keys.wait as string, 0, -1);
      const recs = await records();
      // a pause reaches a job the cap delayed (staged past its fire time): it is taken out of BullMQ
      const last =
        ids[
          recs.reduce((best, r, n) => ((r?.capDelayMs ?? 0) > (recs[best]?.capDelayMs ?? 0) ? n : best), 0)
        ]!;
      await replicas[0]!.pause(last);
      const afterPause = await staged();
      await Promise.all(replicas.map((m) => time.stop(m)));
      expect(afterPause.has(occurrenceJobId(last, top))).toBe(false);
      expect(afterPause.size).toBe(COUNT - 1);

      // none runnable at once: each job staged, runnable at its slot
      expect(waiting).toEqual([]);
      const perSecond = new Map<number, number>();
      let delayed = 0;
      recs.forEach((r, n) => {
        const id = ids[n]!;
        expect(r?.outcome, id).toBe('enqueued'); // none coalesced, none missed
        const fires = top + (r?.capDelayMs ?? 0);
        if ((r?.capDelayMs ?? 0) > 0) delayed++;
        expect(at.get(occurrenceJobId(id, top)), id).toBe(fires);
        expect(fires, id).toBeGreaterThan(r?.enqueuedAt as number);
        const s = Math.floor((fires - top) / 1000);
        perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
      });
      expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(CAP);
      // smoothed, not thinned: the burst takes the seconds the cap needs, plus the add's lead (< 2 s here)
      const seconds = [...perSecond.keys()].sort((a, b) => a - b);
      expect(seconds.length).toBeLessThanOrEqual(COUNT / CAP + 2);
      expect(seconds.at(-1)! - seconds[0]!).toBe(seconds.length - 1);
      // delayed past its fire time: all but the first second's (a slot at the fire time itself, when the
      // adds' lead is short, is staged there, not delayed)
      expect(delayed).toBeGreaterThanOrEqual(COUNT - CAP);
      console.log(`fire cap: ${JSON.stringify([...perSecond])}`);
    } finally {
      await time.stopAll();
      await queue.close();
      await env.cleanup();
    }
  }, 300_000);

  it('a pause reaches a job the cap delayed far past its fire time (beyond a minute)', async () => {
    // 150 aligned at 2 per second: the last ones are staged ~75 s past their fire time
    const env = testEnv('fire-cap-far');
    const time = new ManualTime(env.redis, env.prefix);
    const queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
    const few = ids.slice(0, 150);
    try {
      await time.start();
      const m = env.manager({ maxFiresPerSecond: 2 });
      time.attach(m);
      for (const id of few) m.schedule(() => {}, new CronTrigger('* * * * *'), { id, name: id });
      await m.start();
      const top = Math.ceil((time.now() + 1) / 60_000) * 60_000;
      await time.advance(top - time.now() - 1);
      const records = async () => Promise.all(few.map((id) => m.history.get(id, top)));
      await time.advanceUntil(
        async () => (await records()).every((r) => r?.outcome === 'enqueued'),
        20_000,
        50,
      );
      const recs = await records();
      const delays = recs.map((r) => r?.capDelayMs ?? 0);
      const far = few[delays.indexOf(Math.max(...delays))]!;
      expect(Math.max(...delays)).toBeGreaterThan(70_000);
      const job = occurrenceJobId(far, top);
      expect(await env.redis.zscore(queue.keys.delayed as string, job)).not.toBeNull();
      await m.pause(far);
      expect(await env.redis.zscore(queue.keys.delayed as string, job)).toBeNull();
      expect(await m.history.get(far, top)).toMatchObject({ outcome: 'missed', reason: 'paused' });
      await time.stop(m);
    } finally {
      await time.stopAll();
      await queue.close();
      await env.cleanup();
    }
  }, 120_000);
});
