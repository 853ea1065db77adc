import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { StagedWaker } from '../../src/scheduler/fire/staged-jobs.js';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { ManualClock } from '../queue/manual-clock.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, testEnv } from './helpers.js';

// A Worker whose queue holds only delayed jobs waits on the queue's marker until the first one is due,
// and Redis ends that wait only at its next event loop turn (up to 100 ms late on a quiet server). The
// fire loop wakes the queue of each staged job at its due time: the marker BullMQ writes for a job ready
// now, once per queue and instant.

describe('StagedWaker', () => {
  it('wakes each queue once at each instant its staged jobs are due, not before; nothing after stop', async () => {
    const clock = new ManualClock(0);
    const woken: string[][] = [];
    const waker = new StagedWaker(
      (at) => at - clock.now(),
      clock,
      (qs) => woken.push([...qs].sort()),
    );
    waker.add('a', 100);
    waker.add('b', 93); // on a grid of 10 ms: one wake with a's at 100
    waker.add('a', 100);
    waker.add('a', 250);
    waker.add('c', 50);
    await clock.advance(51);
    expect(woken).toEqual([]); // due at 50, woken just after (Redis's clock is there then)
    await clock.advance(1);
    expect(woken).toEqual([['c']]);
    await clock.advance(49);
    expect(woken).toEqual([['c']]);
    await clock.advance(1);
    expect(woken).toEqual([['c'], ['a', 'b']]);
    waker.add('d', 400);
    waker.stop();
    await clock.advance(1000);
    expect(woken).toEqual([['c'], ['a', 'b']]);
    expect(clock.pending).toBe(0);
  });

  describe('in the fire loop', () => {
    let env: ReturnType<typeof testEnv>;
    afterEach(async () => {
      await env.cleanup();
    });

    it("writes the marker of a staged occurrence's queue once it is due (no worker there: BullMQ itself would not)", async () => {
      env = testEnv('waker');
      const { redis, queue } = env;
      const marker = `bull:${queue}:marker`;
      const [s] = await redis.time();
      // every second from a whole second 3 s away: each claimed about a second ahead, staged
      const fireAt = (Number(s) + 3) * 1000;
      const m = env.manager();
      m.schedule({ name: 'tick' }, new IntervalTrigger(1), { id: 'w', startAt: fireAt });
      await m.start();
      const q = new Queue(queue, { connection: { url: REDIS_URL } });
      try {
        // staged: a delayed job due at its fire time, and BullMQ's delay marker (`1`, scored then)
        await waitUntil(async () => (await q.getJobState(occurrenceJobId('w', fireAt))) === 'delayed');
        expect(await redis.zscore(marker, '0')).toBeNull();
        // once due, the marker of a job ready now: the first time it is seen, Redis's clock is past the fire time
        let seenAt = 0;
        await waitUntil(async () => {
          if ((await redis.zscore(marker, '0')) === null) return false;
          const [sec, us] = await redis.time();
          seenAt = Number(sec) * 1000 + Math.floor(Number(us) / 1000);
          return true;
        }, 10_000);
        expect(seenAt).toBeGreaterThanOrEqual(fireAt);
        // nothing took the job: BullMQ promotes it only when a worker looks
        expect(await q.getJobState(occurrenceJobId('w', fireAt))).toBe('delayed');
      } finally {
        await q.close();
      }
    });
  });
});
