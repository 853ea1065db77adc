import { Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { internalsOf } from '../../src/scheduler/index.js';
import type { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, testEnv } from './helpers.js';

/**
 * When the replica doing the work stops, a survivor takes over at once: a clean stop hands over
 * (it wakes the others), and the lease bookkeeping never hides another replica's live claims. The
 * same across processes stopped and killed: failover-processes.test.ts.
 */
describe('failover', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(async () => {
    await env.cleanup();
  });

  it('after a clean stop of the active replica, the next occurrence runs within claimAheadMs + 1 s (20 trials)', async () => {
    env = testEnv('failover-stop');
    const claimAheadMs = 50;
    const fired: { by: SchedulerManager; e: FiredEvent }[] = [];
    const replica = async () => {
      const m = env.manager({ claimAheadMs });
      for (let i = 0; i < 4; i++) {
        m.schedule({ name: 'tick' }, new IntervalTrigger(0.2, { anchor: i * 50 }), { id: `s${i}` });
      }
      m.on('fired', (e) => fired.push({ by: m, e }));
      await m.start();
      return m;
    };
    let replicas = [await replica(), await replica()];
    const late: number[] = [];
    for (let trial = 0; trial < 20; trial++) {
      const seen = fired.length;
      await waitUntil(() => fired.length >= seen + 4, 5000, { stepMs: 5 });
      const active = fired[fired.length - 1]!.by;
      await active.stop();
      const stoppedAt = await redisNow(env.redis);
      const survivor = replicas.find((r) => r !== active)!;
      const firstAfter = () => fired.find((f) => f.by === survivor && f.e.fireAt > stoppedAt);
      await waitUntil(() => firstAfter() !== undefined, 3000, { stepMs: 5 }).catch(() => undefined);
      const first = firstAfter();
      late.push(first ? first.e.lateMs : Number.POSITIVE_INFINITY);
      replicas = [survivor, await replica()];
    }
    expect(
      late.filter((ms) => ms > claimAheadMs + 1000),
      `lateness per trial (ms): ${late}`,
    ).toEqual([]);
  });

  it('a survivor that saw the active replica holding every claim takes over at once after its clean stop', async () => {
    env = testEnv('failover-handoff');
    // A long lease and sleep: without a hand-off, the survivor would wait for A's lease (20 s) to lapse.
    const opts = { claimLeaseMs: 20_000, claimAheadMs: 50, maxSleepMs: 30_000 };
    const a = env.manager(opts);
    a.schedule({ name: 'tick' }, new IntervalTrigger(1), { id: 'only' });
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let claimed!: () => void;
    const claimedP = new Promise<void>((r) => {
      claimed = r;
    });
    let first = true;
    a.hooks = {
      afterClaim: async () => {
        if (!first) return;
        first = false;
        claimed();
        await held; // A holds the claim while B starts and looks
      },
    };
    await a.start();
    await claimedP;
    const b = env.manager(opts);
    b.schedule({ name: 'tick' }, new IntervalTrigger(1), { id: 'only' });
    const firedByB: FiredEvent[] = [];
    b.on('fired', (e) => firedByB.push(e));
    await b.start(); // its first claim finds nothing due: the one schedule is A's, in flight
    await new Promise((r) => setTimeout(r, 200));
    release();
    await a.stop();
    const stoppedAt = await redisNow(env.redis);
    await waitUntil(() => firedByB.some((e) => e.fireAt > stoppedAt), 5000, { stepMs: 10 });
    const next = firedByB.find((e) => e.fireAt > stoppedAt)!;
    expect(next.lateMs, 'the survivor took over late').toBeLessThanOrEqual(opts.claimAheadMs + 1000);
  });

  it('defaults: a replica dies holding claims; each is taken over within about a lease, and the next occurrence is not coalesced in its place', async () => {
    env = testEnv('failover-held');
    const runs = new Map<string, number>();
    const worker = new Worker<{ scheduleId: string; fireAt: number }>(
      env.queue,
      async (job) => {
        const k = `${job.data.scheduleId}@${job.data.fireAt}`;
        runs.set(k, (runs.get(k) ?? 0) + 1);
      },
      { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, concurrency: 50 },
    );
    await worker.waitUntilReady();
    // the defaults (helpers turn backpressure off: it is on here, as users run it)
    const define = (m: SchedulerManager) => {
      for (let i = 0; i < 20; i++) m.schedule({ name: 'tick' }, new IntervalTrigger(1), { id: `h${i}` });
    };
    const a = env.manager({ backpressure: true });
    define(a);
    let armed = false;
    let held: readonly { id: string; fireAt: number }[] = [];
    let release!: () => void;
    const stalled = new Promise<void>((r) => {
      release = r;
    });
    a.hooks = {
      afterClaim: async (claims) => {
        if (!armed || claims.length === 0 || held.length > 0) return;
        held = claims.map((c) => ({ id: c.id, fireAt: c.fireAt }));
        void a.stop(); // it claims no more
        await stalled; // and neither enqueues nor renews these: dead, as far as Redis can tell
      },
    };
    await a.start();
    await waitUntil(() => runs.size >= 20, 10_000);
    const b = env.manager({ backpressure: true });
    define(b);
    await b.start();
    armed = true;
    await waitUntil(() => held.length > 0, 10_000);
    const last = Math.max(...held.map((h) => h.fireAt));
    // each held occurrence, and the one after it, ran once
    const want = held.flatMap((h) => [`${h.id}@${h.fireAt}`, `${h.id}@${h.fireAt + 1000}`]);
    await waitUntil(() => want.every((k) => runs.has(k)), 15_000).catch(() => undefined);
    const stats = { ...internalsOf(b).loopStats! };
    await b.stop();
    release(); // the stale claimant wakes: its completion is refused, its adds are BullMQ no-ops
    await worker.close();
    expect(
      want.filter((k) => runs.get(k) !== 1),
      `held ${held.length} claims up to ${last}; runs ${JSON.stringify([...runs].filter(([k]) => want.includes(k)))}`,
    ).toEqual([]);
    expect(stats.reclaimed).toBeGreaterThanOrEqual(held.length);
    const coalesced = await Promise.all(
      held.map(async (h) =>
        (await b.history(h.id)).filter((r) => r.reason === 'coalesced').map((r) => r.fireAt),
      ),
    );
    expect(coalesced.flat()).toEqual([]);
  }, 60_000);
});
