// A schedule whose previous job still waits is parked (park.ts): the claim script coalesces its next
// occurrences in Redis while the job waits, instead of the fire loop claiming, planning, looking up and
// completing each. Every occurrence is still counted, announced and recorded (history shows each one),
// and once a consumer takes the waiting job the schedule runs every period again. Defaults throughout
// (backpressure is on by default; the test helpers turn it off, so it is said here).
import { type Job, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { MissedEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, testEnv } from './helpers.js';

let env: ReturnType<typeof testEnv>;
let worker: Worker | undefined;
afterEach(async () => {
  await worker?.close();
  worker = undefined;
  await env.cleanup();
});

describe('a schedule whose job waits is parked', () => {
  it('its occurrences are coalesced in Redis, each counted, announced and recorded; a consumer back, it runs every period again', async () => {
    env = testEnv('park');
    const m = env.manager({ backpressure: true });
    m.schedule({ name: 'tick' }, new IntervalTrigger(0.1), { id: 'p' });
    const missed: MissedEvent[] = [];
    m.on('missed', (e) => {
      if (e.reason === 'coalesced') missed.push(e);
    });
    await m.start();
    // no consumer: the first job waits; the fire loop coalesces the next occurrence and parks the schedule
    await waitUntil(() => (internalsOf(m).loopStats?.coalescedParked ?? 0) >= 15, 20_000, {
      what: 'occurrences coalesced while parked',
    });
    const stats = internalsOf(m).loopStats!;
    // most coalesced occurrences never reached the fire loop: it claimed far fewer than were due
    expect(stats.coalescedParked).toBeGreaterThan(2 * stats.claimed);
    const k = internalsOf(m).keys;
    expect(await env.redis.hexists(`${k.of('p').due}:park`, 'p')).toBe(1);

    // a consumer comes: the waiting job runs, the park ends, and the schedule runs each period again
    const ran: number[] = [];
    worker = new Worker(
      env.queue,
      async (job: Job<{ fireAt: number }>) => {
        ran.push(job.data.fireAt);
      },
      { connection: { url: REDIS_URL, maxRetriesPerRequest: null } },
    );
    await waitUntil(() => ran.length >= 6, 20_000, { what: 'runs once the consumer is back' });
    await m.stop();
    await worker.close();
    const after = ran.slice(1).sort((a, b) => a - b);
    const steps = after.slice(1).map((at, i) => at - after[i]!);
    expect(steps.filter((ms) => ms === 100).length).toBeGreaterThanOrEqual(3);
    expect(await env.redis.hexists(`${k.of('p').due}:park`, 'p')).toBe(0);

    // every occurrence accounted for: counted once (the schedule's counter, this replica's stats and
    // the `missed` events agree), and each one in the history, standing in the waiting job's span
    const final = internalsOf(m).loopStats!;
    const counted = Number(await env.redis.hget(k.counts('p'), 'coalesced'));
    expect(counted).toBe(final.coalesced);
    expect(missed.reduce((n, e) => n + e.count, 0)).toBe(final.coalesced);
    expect(final.enqueued + final.coalesced - final.coalescedBehind).toBe(
      final.claimed + final.coalescedParked,
    );
    const records = await m.history('p');
    const coalesced = records.filter((r) => r.reason === 'coalesced');
    expect(coalesced.length).toBe(final.coalesced);
    const fireAts = coalesced.map((r) => r.fireAt).sort((a, b) => a - b);
    for (const r of coalesced)
      expect(r).toMatchObject({ outcome: 'skipped', coalescedBy: 'consumer-behind' });
    const standIn = records.find((r) => r.fireAt === coalesced[0]!.standIn)!;
    expect(standIn.standsFor).toEqual({
      from: fireAts[0],
      to: fireAts[fireAts.length - 1],
      count: fireAts.length,
      cause: 'consumer-behind',
    });
    // one span, every period of it: no occurrence between its ends is missing
    expect(fireAts.slice(1).every((at, i) => at - fireAts[i]! === 100)).toBe(true);
  }, 60_000);
});
