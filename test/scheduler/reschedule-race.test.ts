import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { internalsOf } from '../../src/scheduler/index.js';
import type { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { ScheduleStore } from '../../src/store/deployment/schedule-store.js';
import { keys } from '../../src/store/keys/keys.js';
import { setScriptClock } from '../../src/store/scripts/script-layout.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

/**
 * Re-timing a schedule (resume, re-definition, remove and re-add) while one of its occurrences is
 * claimed, then pausing it before that claim completes, must never send the schedule back in time.
 * The claim is held open deterministically with `hooks.afterClaim`, on manual time (manual-time.ts):
 * the fire loops' clock and Redis's as the managers see it move only as the test moves them, the
 * held hook included (`ManualTime.hold`).
 */
describe('re-schedule while claimed', () => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime | undefined;
  let releases: (() => void)[] = [];
  afterEach(async () => {
    for (const release of releases) release();
    releases = [];
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
  });

  const PERIOD_S = 0.2;

  /** Manual time for this test's managers, Redis's clock stopped at its reading now. */
  async function manualTime(): Promise<ManualTime> {
    time = new ManualTime(env.redis, env.prefix);
    await time.start();
    return time;
  }

  /** A manager on `t` whose next claim of `id` (after `afterFires` fires) is held until `release()`. */
  function holdingManager(t: ManualTime, id: string, afterFires: number, keepFinishedJobsSec = 1) {
    const m = env.manager({ claimLeaseMs: 60_000, claimAheadMs: 0, keepFinishedJobsSec });
    t.attach(m);
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    releases.push(release);
    let held: number | undefined;
    m.hooks = {
      ...m.hooks,
      afterClaim: async (claims) => {
        const c = claims.find((x) => x.id === id);
        if (!c || held !== undefined || fired.filter((e) => e.scheduleId === id).length < afterFires) return;
        held = c.fireAt;
        await t.hold(m, released);
      },
    };
    /** Move time on until the claim is held; its fire time. */
    const heldAt = async (): Promise<number> => {
      await t.advanceUntil(() => held !== undefined, 10_000);
      return held as number;
    };
    return { m, fired, heldAt, release };
  }

  /** Fire times of the enqueued jobs of one schedule, in the order BullMQ received them. */
  async function enqueuedOrder(scheduleId: string): Promise<number[]> {
    const q = new Queue(env.queue, { connection: { url: REDIS_URL } });
    const jobs = (
      await q.getJobs(['wait', 'active', 'completed', 'failed', 'delayed', 'prioritized'])
    ).filter((j) => j !== undefined && (j.data as { scheduleId?: string }).scheduleId === scheduleId);
    await q.close();
    return jobs
      .sort((a, b) => a.timestamp - b.timestamp || Number(a.id! > b.id!) - Number(a.id! < b.id!))
      .map((j) => (j.data as { fireAt: number }).fireAt);
  }

  function expectForwardOnly(fired: readonly FiredEvent[], id: string): number[] {
    const times = fired.filter((e) => e.scheduleId === id).map((e) => e.fireAt);
    expect(new Set(times).size, `an occurrence of ${id} was enqueued twice: ${times}`).toBe(times.length);
    for (let i = 1; i < times.length; i++) {
      expect(times[i]!, `runs out of fire-time order: ${times}`).toBeGreaterThan(times[i - 1]!);
    }
    return times;
  }

  async function firedOf(m: SchedulerManager, id: string): Promise<number> {
    const job = await m.get(id);
    return job?.fired ?? -1;
  }

  it('pause, resume, pause while claimed: nothing due while paused runs after the next resume', async () => {
    env = testEnv('race-pause');
    const t = await manualTime();
    const { m, fired, heldAt, release } = holdingManager(t, 's', 3);
    m.schedule({ name: 'tick' }, new IntervalTrigger(PERIOD_S), { id: 's' });
    await m.start();
    const claimed = await heldAt();
    expect(await m.pause('s')).toBe(true);
    expect(await m.resume('s')).toBe(true);
    expect(await m.pause('s')).toBe(true);
    const pausedFrom = t.now();
    release();
    await t.advance(1500); // paused for 7 1/2 periods
    const resumedAt = t.now();
    expect(await m.resume('s')).toBe(true);
    const before = fired.length;
    await t.advanceUntil(() => fired.length >= before + 4, 10_000);
    await t.stop(m);

    const times = expectForwardOnly(fired, 's');
    const duringPause = times.filter((t) => t > claimed && t <= resumedAt);
    expect(duringPause, `ran while paused (paused ${pausedFrom}-${resumedAt})`).toEqual([]);
    expect(await enqueuedOrder('s')).toEqual([...times].sort((a, b) => a - b));
    expect(await firedOf(m, 's')).toBe(times.length);
  });

  it('re-defined with a new trigger while claimed, then paused: no rewind after the next resume', async () => {
    env = testEnv('race-redefine');
    const t = await manualTime();
    const { m, fired, heldAt, release } = holdingManager(t, 's', 3);
    m.schedule({ name: 'tick' }, new IntervalTrigger(PERIOD_S), { id: 's' });
    await m.start();
    const claimed = await heldAt();
    await m.schedule({ name: 'tick' }, new IntervalTrigger(PERIOD_S * 1.5), { id: 's' }).saved;
    expect(await m.pause('s')).toBe(true);
    release();
    await t.advance(1500);
    const resumedAt = t.now();
    expect(await m.resume('s')).toBe(true);
    const before = fired.length;
    await t.advanceUntil(() => fired.length >= before + 4, 10_000);
    await t.stop(m);

    const times = expectForwardOnly(fired, 's');
    expect(times.filter((t) => t > claimed && t <= resumedAt)).toEqual([]);
    expect(await firedOf(m, 's')).toBe(times.length);
  });

  it('updated (update()) with a new trigger while claimed, then paused: no rewind after the next resume', async () => {
    env = testEnv('race-update');
    const t = await manualTime();
    const { m, fired, heldAt, release } = holdingManager(t, 's', 3);
    // a runtime schedule (a { name } target), as the API and the CLI update them
    await m.schedule({ name: 'tick' }, new IntervalTrigger(PERIOD_S), { id: 's' }).saved;
    await m.start();
    const claimed = await heldAt();
    // the new trigger's first time falls at or before the claimed occurrence: update must go after it
    const updated = await m.update('s', { trigger: new IntervalTrigger(PERIOD_S / 2), attempts: 2 });
    expect(updated.def.attempts).toBe(2);
    expect(await m.pause('s')).toBe(true);
    release();
    await t.advance(1500);
    const resumedAt = t.now();
    expect(await m.resume('s')).toBe(true);
    const before = fired.length;
    await t.advanceUntil(() => fired.length >= before + 4, 10_000);
    await t.stop(m);

    const times = expectForwardOnly(fired, 's');
    expect(times.filter((t) => t > claimed && t <= resumedAt)).toEqual([]);
    expect(await firedOf(m, 's')).toBe(times.length);
  });

  it('resumed while claimed: the next run comes after the claimed one, never the same one again', async () => {
    env = testEnv('race-resume');
    const t = await manualTime();
    // claimAheadMs > 0: the claimed occurrence is still in the future when resume computes its next time
    const m = env.manager({ claimLeaseMs: 60_000, claimAheadMs: 400, keepFinishedJobsSec: 1 });
    t.attach(m);
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    releases.push(release);
    let held = false;
    m.hooks = {
      ...m.hooks,
      afterClaim: async (claims) => {
        if (held || !claims.some((c) => c.id === 's') || fired.length < 2) return;
        held = true;
        await t.hold(m, released);
      },
    };
    m.schedule({ name: 'tick' }, new IntervalTrigger(1), { id: 's' });
    await m.start();
    await t.advanceUntil(() => held, 10_000);
    expect(await m.pause('s')).toBe(true);
    expect(await m.resume('s')).toBe(true);
    release();
    const before = fired.length;
    await t.advanceUntil(() => fired.length >= before + 3, 10_000);
    await t.stop(m);
    expectForwardOnly(fired, 's');
    expect(await firedOf(m, 's')).toBe(fired.length);
  });

  it('removed and re-added while claimed: the old claim does not run after the new schedule started', async () => {
    env = testEnv('race-readd');
    const t = await manualTime();
    const { m, fired, heldAt, release } = holdingManager(t, 's', 3);
    m.schedule({ name: 'tick' }, new IntervalTrigger(PERIOD_S), { id: 's' });
    await m.start();
    await heldAt();
    expect(await m.remove('s')).toBe(true);
    const readdedAt = t.now();
    await m.schedule({ name: 'tick' }, new IntervalTrigger(PERIOD_S), { id: 's' }).saved;
    // the re-added schedule fires (here or on a second replica) while the first still holds the old claim
    const other = env.manager({ claimLeaseMs: 60_000, claimAheadMs: 0 });
    t.attach(other);
    const firedByOther: FiredEvent[] = [];
    other.on('fired', (e) => firedByOther.push(e));
    await other.start();
    const newRuns = () => [...fired, ...firedByOther].filter((e) => e.fireAt > readdedAt).length;
    await t.advanceUntil(() => newRuns() >= 3, 10_000);
    // held past 1 s after the re-add: the old claim, run now, would be more than 1 s late
    await t.advance(Math.max(0, readdedAt + 1100 - t.now()));
    release();
    await t.advance(500);
    await t.stop(m);
    await t.stop(other);

    const order = await enqueuedOrder('s');
    const sorted = [...order].sort((a, b) => a - b);
    expect(order, 'enqueued out of fire-time order').toEqual(sorted);
    expect(new Set(order).size).toBe(order.length);
    // the re-added schedule's history holds its own runs only
    const lateOld = fired.filter((e) => e.fireAt < readdedAt && e.lateMs > 1000);
    expect(lateOld).toEqual([]);
  });

  it('a claim left by a dead replica of a schedule paused since is dropped, not taken over and run', async () => {
    env = testEnv('race-dead-paused');
    const client = env.manager({ role: 'client' });
    await client.schedule({ name: 'tick' }, new IntervalTrigger(0.2), { id: 's' }).saved;
    const k = keys(env.prefix);
    const dueAt = Number(await env.redis.zscore(k.due, 's'));
    // A replica claims the next occurrence at its due time (its scripts' clock driven there: no
    // waiting for it), then dies before enqueueing it; its claim's lease runs to dueAt + 300.
    setScriptClock(env.redis, () => dueAt);
    const store = new ScheduleStore(env.redis, k, 100);
    const dead = await store.claim(10, 300, 'dead.0', 0);
    setScriptClock(env.redis, undefined);
    expect(dead.claims.map((c) => c.id)).toEqual(['s']);
    expect(Number(await env.redis.zscore(k.inflight, 's'))).toBe(dueAt + 300);
    expect(await client.pause('s')).toBe(true);
    // The next replica's claims judge by a clock 1 s ahead of Redis's: the dead claim has lapsed for
    // its first claim, without sleeping through the lease.
    const replica = env.manager({ claimLeaseMs: 1000 });
    const offset = (await redisNow(env.redis)) - Date.now();
    setScriptClock(internalsOf(replica).redis, () => Date.now() + offset + 1000, ['claim-6']);
    await replica.start();
    await waitUntil(
      async () => (internalsOf(replica).loopStats?.cycles ?? 0) >= 1 && (await env.redis.hlen(k.claim)) === 0,
      5000,
      { what: 'the dead claim dropped by a claim of the replica' },
    );
    expect(internalsOf(replica).loopStats?.reclaimed).toBe(0);
    expect(await env.jobIds()).toEqual([]);
    expect(await env.redis.zscore(k.inflight, 's')).toBeNull();
    // resumed later: it goes on from the next occurrence after now
    expect(await client.resume('s')).toBe(true);
    await waitUntil(async () => (await env.jobIds()).length >= 2, 5000);
  });
});
