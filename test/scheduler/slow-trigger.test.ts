// A trigger that is slow but under its budget must not hold the other schedules back: each schedule's
// planning gets a share of the fire loop (plan-allowance.ts), and a claim of one that used it up is set
// aside until it refills, so the others are enqueued meanwhile.
import { Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { chargePlan, PLAN_SHARE, planWaitMs } from '../../src/scheduler/fire/plan-allowance.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import type { Trigger } from '../../src/triggers/trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, testEnv } from './helpers.js';

describe('plan allowance', () => {
  it('a burst of one budget, then PLAN_SHARE of wall time; fast plans keep nothing', () => {
    expect(chargePlan(undefined, 0, 0.01, 50)).toBeUndefined();
    const a = chargePlan(undefined, 0, 45, 50)!;
    expect(a.tokensMs).toBe(5);
    expect(planWaitMs(a, 0, 50)).toBe(0); // 5 ms left: one more plan may run
    const b = chargePlan(a, 20, 45, 50)!;
    expect(b.tokensMs).toBeCloseTo(5 + 20 * PLAN_SHARE - 45);
    expect(planWaitMs(b, 20, 50)).toBe(Math.ceil(-b.tokensMs / PLAN_SHARE)); // ~2 s
    expect(planWaitMs(b, 20 + Math.ceil(-b.tokensMs / PLAN_SHARE), 50)).toBe(0);
    // refilled to a whole budget and fast again: the allowance is dropped
    expect(chargePlan(b, 1_000_000, 0.01, 50)).toBeUndefined();
  });
});

describe('a slow trigger beside fast ones', () => {
  let env: ReturnType<typeof testEnv>;
  let worker: Worker | undefined;
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await env.cleanup();
  });

  it('a 45 ms trigger (budget 50) due every 20 ms plans within its share; 50 others fire meanwhile', async () => {
    env = testEnv('slow-trigger');
    let plans = 0;
    const slow: Trigger = {
      nextFire(last, now) {
        plans++;
        const until = performance.now() + 45;
        while (performance.now() < until) {} // under the 50 ms budget, every time
        const t = last ?? now;
        return t - (t % 20) + 20;
      },
    };
    worker = new Worker(env.queue, async () => undefined, {
      connection: { url: REDIS_URL, maxRetriesPerRequest: null },
      concurrency: 50,
    });
    const m = env.manager({ backpressure: true });
    m.schedule({ name: 'slow' }, slow, { id: 'slow' });
    for (let i = 0; i < 50; i++) m.schedule({ name: 'fast' }, new IntervalTrigger(0.1), { id: `f${i}` });
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    const from = performance.now();
    const plansAtStart = plans;
    const fastRuns = () => fired.filter((e) => e.scheduleId !== 'slow').length;
    await waitUntil(() => fastRuns() >= 50 * 20, 30_000); // 2 s of the others' occurrences
    const elapsed = performance.now() - from;
    // counted over the same span as `elapsed` (the stop's own last claim is not in it)
    const planned = plans - plansAtStart;
    await m.stop();

    // the slow trigger planned within its allowance (a budget, then 2 % of the time, and the overdraft
    // of one claim's planning: its plan, the walk of a late claim, a coalescing walk, each stopped at
    // the 50 ms budget), not on every claim: without the allowance it plans about once per 45 ms, the
    // loop's whole time
    const allowed = (50 + elapsed * PLAN_SHARE + 5 * 45) / 45;
    expect(planned).toBeLessThanOrEqual(allowed);
    expect(planned).toBeLessThan(elapsed / 45 / 2);
    expect(internalsOf(m).loopStats!.setAside).toBeGreaterThan(0);
    // and it still runs, behind (its occurrences coalesced into one per plan), never errored
    expect(fired.some((e) => e.scheduleId === 'slow')).toBe(true);
    expect((await m.get('slow'))!.toJSON().status).toBe('active');
  });
});
