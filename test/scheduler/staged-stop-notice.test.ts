import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { StagedHere } from '../../src/scheduler/fire/staged-here.js';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import type { Claim } from '../../src/store/forms/schedule-store-types.js';
import { publishWake } from '../../src/store/keys/channels.js';
import { keys } from '../../src/store/keys/index.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

/**
 * A replica takes back what it staged itself when a schedule is stopped: the delayed jobs it added
 * while the stop travelled (its add in flight, or landed after the pause's own search of the queue).
 * It remembers them, so a stop notice looks each up by its job id, and one for a schedule it staged
 * nothing for costs nothing.
 */
describe('a stop notice and the jobs this replica staged', () => {
  /** A replica claiming 1.5 s ahead (staging) on `time`, one schedule every 2 s, no consumer. */
  async function stagingReplica(env: ReturnType<typeof testEnv>, time: ManualTime) {
    const m = env.manager({ claimLeaseMs: 8000, claimAheadMs: 1500, commitAhead: true });
    time.attach(m);
    await m.schedule({ name: 'tick' }, new IntervalTrigger(2), { id: 's' }).saved;
    return m;
  }

  it('a pause made while the add is in flight: the job lands, is taken back at once, and is recorded missed', () =>
    onManualTime('staged-in-flight', async ({ env, time, queue }) => {
      const m = await stagingReplica(env, time);
      // true once `fireAt` is far enough ahead of Redis's clock for its claim to be staged
      const ahead = (fireAt: number) => fireAt > time.now() + 500;
      let held: Claim | undefined;
      m.hooks = {
        ...m.hooks,
        beforeAdd: async (claims) => {
          const c = claims.find((x) => x.id === 's');
          if (held || !c || !ahead(c.fireAt)) return;
          held = c;
          // the pause searches the queue before this add lands: only the replica can take it back
          expect(await m.pause('s')).toBe(true);
        },
      };
      await m.start();
      await time.advanceUntil(() => held !== undefined, 5_000, 50);
      const fireAt = held!.fireAt;
      await waitUntil(async () => (await m.history('s', 10)).some((r) => r.fireAt === fireAt), 10_000);
      expect(await queue.getJob(occurrenceJobId('s', fireAt))).toBeUndefined();
      const record = (await m.history('s', 10)).find((r) => r.fireAt === fireAt);
      expect(record?.outcome).toBe('missed');
      expect(record?.reason).toBe('paused');
    }));

  it('a stop notice after the add landed takes the job back by its id', () =>
    onManualTime('staged-landed', async ({ env, time, queue }) => {
      const m = await stagingReplica(env, time);
      const staged: Claim[] = [];
      m.hooks = { ...m.hooks, afterEnqueue: (claims) => void staged.push(...claims) };
      await m.start();
      let target: Claim | undefined;
      await time.advanceUntil(
        () => {
          target = staged.find((c) => c.fireAt > time.now() + 500);
          return target !== undefined;
        },
        5_000,
        50,
      );
      const jobId = occurrenceJobId('s', target!.fireAt);
      expect(await queue.getJobState(jobId)).toBe('delayed');
      // the notice alone (no pause, so no search of the queue by the control): what the replica staged
      await publishWake(env.redis, keys(env.prefix), 'stop:s');
      await waitUntil(async () => (await queue.getJob(jobId)) === undefined, 10_000);
      const record = (await m.history('s', 10)).find((r) => r.fireAt === target!.fireAt);
      expect(record?.outcome).toBe('missed');
      expect(record?.reason).toBe('paused');
    }));
});

/**
 * `body` with its own prefix and queue, on manual time (started), and a BullMQ `Queue` on that queue;
 * all closed after, whatever the body did.
 */
async function onManualTime(
  tag: string,
  body: (t: { env: ReturnType<typeof testEnv>; time: ManualTime; queue: Queue }) => Promise<void>,
): Promise<void> {
  const env = testEnv(tag);
  const time = new ManualTime(env.redis, env.prefix);
  const queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
  try {
    await time.start();
    await body({ env, time, queue });
  } finally {
    await time.stopAll();
    await queue.close();
    await env.cleanup();
  }
}

describe("a pause's own reach: the staged jobs its schedule's records name", () => {
  it('takes jobs staged by a replica that stopped since, found by their records, not by the replica (pause and remove)', () =>
    onManualTime('staged-by-record', async ({ env, time, queue }) => {
      // spread over 30 s: each occurrence is staged, at its fire time plus its offset
      const m = env.manager({});
      time.attach(m);
      const ids = ['a', 'b', 'c', 'd'];
      for (const id of ids)
        m.schedule(() => {}, new CronTrigger('* * * * *'), { id, name: id, spread: '30s' });
      await m.start();
      const top = Math.ceil((time.now() + 1) / 60_000) * 60_000;
      await time.advance(top - time.now() + 10);
      const records = async () => Promise.all(ids.map((id) => m.history.get(id, top)));
      await time.advanceUntil(
        async () => (await records()).every((r) => r?.outcome === 'enqueued'),
        5_000,
        50,
      );
      const staged = (await queue.getDelayed()).map((j) => j.id);
      expect(staged.length).toBeGreaterThan(0);
      // the replica that staged them is gone: only the pause itself can take them back
      await time.stop(m);
      const admin = env.manager({ role: 'client' });
      // a and b paused, c and d removed (their records go with them: read before)
      const [paused, removed] = [ids.slice(0, 2), ids.slice(2)];
      for (const id of paused) await admin.pause(id);
      for (const id of removed) await admin.remove(id);
      expect(await queue.getJobCounts('delayed')).toEqual({ delayed: 0 });
      for (const id of paused) {
        const r = await admin.history.get(id, top);
        if (staged.includes(occurrenceJobId(id, top)))
          expect(r).toMatchObject({ outcome: 'missed', reason: 'paused' });
      }
      expect(staged.filter((j) => removed.some((id) => j === occurrenceJobId(id, top)))).not.toEqual([]);
    }));
});

describe("a pause where the schedule's history is shorter than its staged jobs", () => {
  it('searches the queue: every capped job of it is taken back, the ones its trimmed history no longer names too', () =>
    onManualTime('staged-trimmed', async ({ env, time, queue }) => {
      // five schedules every second, one fire a second: a backlog of capped jobs that grows, and a
      // history of two records (trimmed at every new one)
      const m = env.manager({ maxFiresPerSecond: 1, historyLimit: 2 });
      time.attach(m);
      const ids = ['a', 'b', 'c', 'd', 'e'];
      for (const id of ids) m.schedule(() => {}, new IntervalTrigger(1), { id, name: id });
      await m.start();
      await time.advance(8_000);
      // a's jobs not runnable yet by Redis's clock (one due already is BullMQ's to promote: it runs)
      const ofA = async () =>
        (await queue.getDelayed()).filter(
          (j) => j.id?.startsWith('bb-a-') && j.timestamp + j.delay > time.now(),
        );
      expect((await ofA()).length).toBeGreaterThan(2);
      await time.stop(m);
      const admin = env.manager({ role: 'client', historyLimit: 2 });
      await admin.pause('a');
      expect(await ofA()).toEqual([]);
    }));
});

describe('a job the fire-rate cap delays, added while its schedule is paused', () => {
  it('is taken back once it lands, though nothing was staged ahead (commitAhead off, as this test sets)', () =>
    onManualTime('capped-in-flight', async ({ env, time, queue }) => {
      const ids = ['a', 'b', 'c'];
      // one fire a second: three aligned occurrences become runnable a second apart, each a delayed job
      const m = env.manager({ maxFiresPerSecond: 1, commitAhead: false });
      time.attach(m);
      for (const id of ids) m.schedule(() => {}, new CronTrigger('* * * * *'), { id, name: id });
      let paused = false;
      m.hooks = {
        ...m.hooks, // the manual clock
        beforeAdd: async () => {
          if (paused) return;
          paused = true;
          // each pause searches the queue before the adds land: only the replica can take them back
          for (const id of ids) await m.pause(id);
        },
      };
      await m.start();
      const top = Math.ceil((time.now() + 1) / 60_000) * 60_000;
      await time.advance(top - time.now() + 10);
      await time.advanceUntil(
        async () => (await Promise.all(ids.map((id) => m.history.get(id, top)))).every((r) => r !== null),
        5_000,
        50,
      );
      const records = await Promise.all(ids.map((id) => m.history.get(id, top)));
      // each is a delayed job (the cap gives no slot sooner than its adds can land): none left to run
      for (const r of records) expect(r).toMatchObject({ outcome: 'missed', reason: 'paused' });
      expect(await queue.getJobCounts('delayed', 'waiting')).toEqual({ delayed: 0, waiting: 0 });
      await time.stop(m);
    }));
});

describe('StagedHere', () => {
  const job = (fireAt: number, until = fireAt) => ({ queue: 'q', fireAt, offsetMs: 0, until });

  it('hands back a schedule’s jobs not yet runnable once, and nothing for another', () => {
    const s = new StagedHere();
    s.add('a', job(10_000), 0);
    s.add('a', job(20_000), 0);
    s.add('b', job(10_000), 0);
    expect(s.take('c', 0)).toEqual([]);
    // runnable more than a second ago: BullMQ may have promoted it, it is not looked up
    expect(s.take('a', 11_500)?.map((j) => j.fireAt)).toEqual([20_000]);
    expect(s.take('a', 0)).toEqual([]);
    expect(s.take('b', 10_500)?.map((j) => j.fireAt)).toEqual([10_000]);
  });

  it('past what it can remember, it says so (the caller searches the queue) until none is left', () => {
    const s = new StagedHere();
    for (let i = 0; i < 100_001; i++) s.add(`s${i}`, job(1_000_000), 0);
    expect(s.take('s1', 0)).toBeUndefined();
    s.prune(2_000_000);
    s.add('x', job(3_000_000), 2_000_000);
    expect(s.take('x', 2_000_000)?.map((j) => j.fireAt)).toEqual([3_000_000]);
  });
});
