import { afterEach, describe, expect, it } from 'vitest';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

/**
 * A burst: many schedules due at the same instant, claimed in several batches, enqueued in chunks. On
 * manual time (the fire loop's clock and Redis's, see manual-time.ts): the seconds between the bursts
 * are advanced through, not waited for.
 */
describe('aligned bursts', () => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime | undefined;
  afterEach(async () => {
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
  });

  it('N schedules due at one instant: each occurrence enqueued exactly once, none skipped, never early', async () => {
    env = testEnv('burst');
    const n = 600; // more than a claim batch (100 here) and than an addBulk chunk
    time = new ManualTime(env.redis, env.prefix);
    await time.start();
    const m = env.manager({ claimBatch: 100 });
    time.attach(m);
    for (let i = 0; i < n; i++) m.schedule({ name: 'tick' }, new IntervalTrigger(1), { id: `b${i}` });
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await time.advanceUntil(() => fired.length >= 4 * n, 10_000, 100);
    await time.stop(m);

    const jobs = await env.jobIds();
    expect(new Set(jobs).size).toBe(jobs.length);
    expect(jobs.length).toBe(fired.length);
    const byInstant = new Map<number, Set<string>>();
    for (const e of fired) {
      expect(e.lateMs).toBeGreaterThanOrEqual(0);
      expect(jobs).toContain(occurrenceJobId(e.scheduleId, e.fireAt));
      let ids = byInstant.get(e.fireAt);
      if (!ids) byInstant.set(e.fireAt, (ids = new Set()));
      expect(ids.has(e.scheduleId), `${e.scheduleId} twice at ${e.fireAt}`).toBe(false);
      ids.add(e.scheduleId);
    }
    // aligned: every fire time is a whole second, and every instant but the first (the upserts may
    // straddle a second) and the last (stopped in the middle) carries all N
    const instants = [...byInstant.keys()].sort((a, b) => a - b);
    expect(instants.every((t) => t % 1000 === 0)).toBe(true);
    expect(instants.length).toBeGreaterThanOrEqual(3);
    for (const t of instants.slice(1, -1)) expect(byInstant.get(t)!.size).toBe(n);
    for (let i = 1; i < instants.length; i++) expect(instants[i]! - instants[i - 1]!).toBe(1000);
  });
});
