// What backpressure does not run is visible occurrence by occurrence: each coalesced occurrence has a
// record that names the cause and the run standing for it, that run says what it stands for, and
// `why` at a coalesced instant explains the coalescing (never "the schedule was paused").
import { type Job, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { whyDidntItRun } from '../../src/insight/why.js';
import { internalsOf } from '../../src/scheduler/index.js';
import type { RunRecord } from '../../src/store/forms/run-record.js';
import { setScriptClock } from '../../src/store/scripts/script-layout.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

let env: ReturnType<typeof testEnv>;
let worker: Worker | undefined;
let time: ManualTime | undefined;
afterEach(async () => {
  await time?.stopAll();
  time = undefined;
  await worker?.close();
  worker = undefined;
  await env.cleanup();
});

describe('coalesced occurrences are recorded', () => {
  it('consumer behind: each coalesced occurrence names the waiting run, which stands for them all', async () => {
    env = testEnv('coalesced-consumer');
    // on manual time (the fire loop's clock and Redis's, see manual-time.ts): no consumer runs, so
    // the periods are advanced through
    time = new ManualTime(env.redis, env.prefix);
    await time.start();
    const m = env.manager({ backpressure: true }); // the default, said here because helpers turn it off
    time.attach(m);
    m.schedule({ name: 'tick' }, new IntervalTrigger(0.2), { id: 'c' });
    await m.start();
    // no consumer: the first job waits, every later occurrence is coalesced into it
    await time.advanceUntil(() => (internalsOf(m).loopStats?.coalesced ?? 0) >= 5, 5000);
    await time.stop(m);
    const records = await m.history('c');
    const ran = records.filter((r) => r.outcome === 'enqueued');
    const coalesced = records.filter((r) => r.reason === 'coalesced');
    // committed ahead, the occurrence after the first is staged before the first has waited half a
    // gap: at most two jobs (one waiting, one staged), and the newest stands for what was coalesced
    expect(ran.length).toBeGreaterThanOrEqual(1);
    expect(ran.length).toBeLessThanOrEqual(2);
    const standIn = ran.reduce((a, b) => (a.fireAt > b.fireAt ? a : b));
    expect(coalesced.length).toBe(internalsOf(m).loopStats!.coalesced);
    for (const r of coalesced) {
      expect(r).toMatchObject({
        outcome: 'skipped',
        coalescedBy: 'consumer-behind',
        standIn: standIn.fireAt,
      });
    }
    const fireAts = coalesced.map((r) => r.fireAt).sort((a, b) => a - b);
    expect(standIn.standsFor).toEqual({
      from: fireAts[0],
      to: fireAts[fireAts.length - 1],
      count: coalesced.length,
      cause: 'consumer-behind',
    });
    // stored as a field each in the waiting run's record (`c<ms after it>`), not as records of their own
    for (const at of fireAts)
      expect(await env.redis.exists(internalsOf(m).keys.record('c', String(at)))).toBe(0);
    const fields = await env.redis.hkeys(internalsOf(m).keys.record('c', String(standIn.fireAt)));
    expect(fields.filter((f) => /^c\d+$/.test(f)).sort()).toEqual(
      fireAts.map((at) => `c${at - standIn.fireAt}`).sort(),
    );
    expect(standIn.coalescedAfter?.map((ms) => standIn.fireAt + ms).sort()).toEqual(fireAts);
    // the manager's history reads one such occurrence as `list` shows it; the store's own `get` (what
    // a run's start checks, one read) finds no record of its own
    expect(await m.history.get('c', fireAts[1]!)).toEqual(coalesced.find((r) => r.fireAt === fireAts[1]));
    expect(await m.history.get('c', fireAts[1]!)).toMatchObject({
      outcome: 'skipped',
      standIn: standIn.fireAt,
    });
    expect(await Object.getPrototypeOf(m.history).get.call(m.history, 'c', fireAts[1]!)).toBeNull();
    expect(await m.history.get('c', standIn.fireAt - 1)).toBeNull();
    const why = await whyDidntItRun(m, 'c', { at: fireAts[1]! });
    expect(why.cause).toBe('coalesced');
    expect(why.summary).toContain('consumer-behind');
    expect(why.summary).toContain(new Date(standIn.fireAt).toISOString());
  });

  it('scheduler behind (every replica down for 2.5 s): the latest occurrence runs and stands for the outage, one record for the span', async () => {
    env = testEnv('coalesced-behind');
    const runs: number[] = [];
    worker = new Worker(
      env.queue,
      async (job: Job<{ fireAt: number }>) => {
        runs.push(job.data.fireAt);
      },
      { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, concurrency: 5 },
    );
    await worker.waitUntilReady();
    const define = (m: ReturnType<typeof env.manager>) =>
      m.schedule({ name: 'tick' }, new IntervalTrigger(0.2), { id: 'b' });
    const first = env.manager({ backpressure: true });
    define(first);
    await first.start();
    await waitUntil(() => runs.length >= 2, 10_000);
    await first.stop();
    // down for 2.5 s, longer than a take-over explains: the next replica's claims judge by a clock
    // 2.5 s ahead of Redis's (its claim scripts' clock, driven), rather than the test sleeping
    const second = env.manager({ backpressure: true });
    define(second);
    const offset = (await redisNow(env.redis)) - Date.now();
    setScriptClock(internalsOf(second).redis, () => Date.now() + offset + 2500);
    await second.start();
    await waitUntil(
      () =>
        (internalsOf(second).loopStats?.coalesced ?? 0) > 0 &&
        (internalsOf(second).loopStats?.enqueued ?? 0) >= 2,
      10_000,
    );
    await second.stop();
    const records = await second.history('b');
    const all = records.filter((r) => r.reason === 'coalesced');
    expect(all.length).toBe(internalsOf(second).loopStats!.coalesced);
    // the outage's span; on a loaded box the plain Worker may lag too, and an occurrence after the
    // stand-in is coalesced because the stand-in's job still waits (`consumer-behind`): another span
    const coalesced = all.filter((r) => r.coalescedBy === 'scheduler-behind');
    expect(coalesced.length).toBeGreaterThan(0);
    expect(
      all.filter((r) => r.coalescedBy !== 'scheduler-behind' && r.coalescedBy !== 'consumer-behind'),
    ).toEqual([]);
    const standInAt = coalesced[0]!.standIn!;
    for (const r of coalesced)
      expect(r).toMatchObject({ coalescedBy: 'scheduler-behind', standIn: standInAt });
    const standIn = records.find((r) => r.fireAt === standInAt) as RunRecord;
    expect(standIn.standsFor).toMatchObject({ count: coalesced.length, cause: 'scheduler-behind' });
    expect(standIn.outcome).not.toBe('skipped');
    // the span is one record, the stand-in's: history shows each occurrence of it from that record
    expect(standIn.coalescedBefore?.map((ms) => standInAt - ms).sort()).toEqual(
      coalesced.map((r) => r.fireAt).sort(),
    );
    for (const r of coalesced) {
      expect(await env.redis.exists(internalsOf(second).keys.record('b', String(r.fireAt)))).toBe(0);
    }
    expect(await env.redis.exists(internalsOf(second).keys.record('b', String(standInAt)))).toBe(1);
    expect(await second.history.get('b', coalesced[0]!.fireAt)).toMatchObject({
      outcome: 'skipped',
      coalescedBy: 'scheduler-behind',
      standIn: standInAt,
    });
    // ... and the stand-in ran, enqueued by the claim that found it behind (not left to a later claim)
    expect(coalesced.every((r) => r.fireAt < standInAt)).toBe(true);
    await waitUntil(() => runs.includes(standInAt), 5000);
    const oldest = Math.min(...coalesced.map((r) => r.fireAt));
    const why = await whyDidntItRun(second, 'b', { at: oldest });
    expect(why.cause).toBe('coalesced');
    expect(why.summary).toContain('scheduler-behind');
    expect(why.summary).not.toContain('paused');
  });
});
