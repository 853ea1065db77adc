import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { FiredEvent, MissedEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import type { Claim } from '../../src/store/forms/schedule-store-types.js';
import { DateTrigger } from '../../src/triggers/date-trigger.js';
import { ManualClock } from '../queue/manual-clock.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

/**
 * The fire loop on a manual clock, against the test Redis whose clock, as the manager sees it, moves
 * with it (manual-time.ts): claiming, the claim horizon, firing, misfires and take-overs, to the
 * millisecond, without sleeping through any of it.
 */
describe('the fire loop on a manual clock', () => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime;
  afterEach(async () => {
    await time.stopAll();
    await env.cleanup();
  });

  it('holds what it claimed ahead and enqueues each occurrence when the clock reaches its instant', async () => {
    env = testEnv('clock-fire');
    time = new ManualTime(env.redis, env.prefix);
    const t0 = await time.start();
    // claims reach 5 s ahead: the first claim takes all three. The hold path: with commitAhead off (on
    // by default, it would stage them in BullMQ's delayed set at the claim; commit-ahead.test.ts)
    const m = env.manager({ claimLeaseMs: 20_000, claimAheadMs: 5000, commitAhead: false });
    time.attach(m);
    const ats = [t0 + 1000, t0 + 2000, t0 + 3000];
    for (const [i, at] of ats.entries()) m.schedule({ name: 'tick' }, new DateTrigger(at), { id: `d${i}` });
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await waitUntil(() => internalsOf(m).loopFootprint?.pending === 3);
    const q = new Queue(env.queue, { connection: { url: REDIS_URL } });
    const added = async (i: number) => (await q.getJob(occurrenceJobId(`d${i}`, ats[i]!))) !== undefined;
    try {
      for (const [i, at] of ats.entries()) {
        await time.advance(at - 1 - time.now());
        expect(internalsOf(m).loopFootprint?.pending).toBe(3 - i); // a millisecond before: still held
        expect(await added(i)).toBe(false);
        // at its instant: the loop's estimate of Redis's clock is a lower bound that runs 0.1 % slow
        // between claims (RedisClock), so it may come a ms or two after
        expect(await time.advanceUntil(() => added(i), 10, 1)).toBeLessThanOrEqual(3);
      }
    } finally {
      await q.close();
    }
    await time.stop(m);
    // announced and recorded once the claim's batch completed (with the last of the three)
    expect(fired.map((e) => e.fireAt)).toEqual(ats);
    for (const [i, at] of ats.entries()) {
      expect(fired[i]!.lateMs).toBeLessThanOrEqual(2);
      const record = await m.history.get(`d${i}`, at);
      expect(record?.outcome).toBe('enqueued');
      expect(record?.enqueuedAt).toBeGreaterThanOrEqual(at); // never before its instant
      expect(record?.enqueuedAt).toBeLessThanOrEqual(at + 2);
    }
  });

  it('takes a claim one claim horizon before its fire time, not sooner', async () => {
    env = testEnv('clock-horizon');
    time = new ManualTime(env.redis, env.prefix);
    const t0 = await time.start();
    // commitAhead off: the claimed occurrence is held here (pending) until its instant
    const m = env.manager({ claimLeaseMs: 4000, claimAheadMs: 1000, maxSleepMs: 60_000, commitAhead: false });
    time.attach(m);
    const at = t0 + 3000; // beyond the first claim's horizon
    m.schedule({ name: 'tick' }, new DateTrigger(at), { id: 'later' });
    const wakes: number[] = []; // Redis time of each claim
    m.on('wake', () => wakes.push(time.now()));
    const claimedAt: number[] = [];
    m.hooks = { ...m.hooks, afterClaim: () => void claimedAt.push(time.now()) };
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await waitUntil(() => wakes.length === 1);
    await time.advance(at - 1000 - 1 - time.now());
    expect(wakes).toEqual([t0]); // no claim in between: the timer sleeps until the horizon reaches it
    await time.advance(1);
    expect(wakes).toEqual([t0, at - 1000]);
    expect(claimedAt).toEqual([at - 1000]);
    expect(internalsOf(m).loopFootprint?.pending).toBe(1);
    await time.advance(999);
    expect(fired).toHaveLength(0);
    expect(await time.advanceUntil(() => fired.length === 1, 10, 1)).toBeLessThanOrEqual(3); // 0.1 % slow
    expect(fired[0]).toMatchObject({ fireAt: at });
    expect(fired[0]!.lateMs).toBeLessThanOrEqual(2);
    await time.stop(m);
  });

  it('records an occurrence found past its misfire grace as missed, and runs one within it', async () => {
    env = testEnv('clock-misfire');
    time = new ManualTime(env.redis, env.prefix);
    const t0 = await time.start();
    const m = env.manager();
    time.attach(m);
    const options = { misfire: 'skip', misfireGraceMs: 1000 } as const;
    m.schedule({ name: 'tick' }, new DateTrigger(t0 - 1001), { id: 'past', ...options });
    m.schedule({ name: 'tick' }, new DateTrigger(t0 - 1000), { id: 'inside', ...options });
    const missed: MissedEvent[] = [];
    const fired: FiredEvent[] = [];
    m.on('missed', (e) => missed.push(e));
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await waitUntil(() => missed.length === 1 && fired.length === 1);
    expect(missed[0]).toMatchObject({ scheduleId: 'past', reason: 'misfire', fireAts: [t0 - 1001] });
    expect(await m.history.get('past', t0 - 1001)).toMatchObject({ outcome: 'missed', reason: 'misfire' });
    expect(fired[0]).toMatchObject({ scheduleId: 'inside', fireAt: t0 - 1000, lateMs: 1000 });
    expect(await env.jobIds()).toEqual([occurrenceJobId('inside', t0 - 1000)]);
    await time.stop(m);
  });

  it('a replica whose clock stands still loses its claim when the claim lease lapses, to a live one', async () => {
    env = testEnv('clock-lapse');
    time = new ManualTime(env.redis, env.prefix);
    const t0 = await time.start();
    const leaseMs = 400;
    const at = t0 + 100;
    const frozen = new ManualClock(0); // never advanced: this replica neither enqueues nor renews
    // the hold path (commitAhead off): with staging, on by default, the claim is staged and completed
    // at once and the stalled replica holds nothing (commit-ahead.test.ts, trust-chaos.test.ts)
    const stalled = env.manager({ claimLeaseMs: leaseMs, claimAheadMs: 100, commitAhead: false });
    time.attach(stalled, frozen);
    stalled.schedule({ name: 'tick' }, new DateTrigger(at), { id: 'held' });
    let claimed: Claim | undefined;
    stalled.hooks = { ...stalled.hooks, afterClaim: (c) => void (claimed ??= c[0]) };
    const firedByStalled: FiredEvent[] = [];
    stalled.on('fired', (e) => firedByStalled.push(e));
    await stalled.start();
    await waitUntil(() => internalsOf(stalled).loopFootprint?.pending === 1);
    expect(claimed?.fireAt).toBe(at);

    const live = env.manager({ claimLeaseMs: leaseMs, claimAheadMs: 100, commitAhead: false });
    time.attach(live);
    live.schedule({ name: 'tick' }, new DateTrigger(at), { id: 'held' });
    const fired: FiredEvent[] = [];
    live.on('fired', (e) => fired.push(e));
    await live.start();
    await time.advance(leaseMs - 1); // its fire time passed, the claim is still leased: not the live one's
    expect(internalsOf(live).loopStats?.claimed).toBe(0);
    expect(fired).toHaveLength(0);
    await time.advance(1); // the lease lapses: the live replica's next claim takes it over
    await waitUntil(() => fired.length === 1);
    expect(fired[0]).toMatchObject({ scheduleId: 'held', fireAt: at, lateMs: leaseMs - 100 });
    expect(internalsOf(live).loopStats?.reclaimed).toBe(1);
    await time.stop(live);
    // the stalled replica wakes: its enqueue finds the job there, its completion is refused, and it
    // does not announce the occurrence the live replica announced
    await time.stop(stalled, frozen);
    expect(await env.jobIds()).toEqual([occurrenceJobId('held', at)]);
    expect(firedByStalled).toEqual([]);
    expect(internalsOf(stalled).loopStats?.enqueued ?? 0).toBe(0);
    expect(await live.history.get('held', at)).toMatchObject({ outcome: 'enqueued', enqueuedAt: at + 300 });
  });
});
