import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import type { Claim } from '../../src/store/forms/schedule-store-types.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

/**
 * Occurrences are claimed up to claimAheadMs before their fire time and enqueued at it. The pause cases
 * run on manual time (manual-time.ts): the fire loops' clock and Redis's as the managers see it move
 * only as the test moves them; what travels between processes (a pause's notice) is waited for.
 */
describe('claim ahead', () => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime | undefined;
  let release: (() => void) | undefined;
  afterEach(async () => {
    release?.();
    release = undefined;
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
  });

  /** Manual time for this test's managers, Redis's clock stopped at its reading now. */
  async function manualTime(): Promise<ManualTime> {
    time = new ManualTime(env.redis, env.prefix);
    await time.start();
    return time;
  }

  /** `m`'s fire loop has heard that a schedule stopped (a pause's notice, or its recheck on resubscribing). */
  async function heardStop(m: ReturnType<typeof env.manager>): Promise<void> {
    await waitUntil(() => (internalsOf(m).loopFootprint?.stopNotices ?? 0) > 0, 10_000, {
      what: "the pause heard by the replica's fire loop",
    });
  }

  /** Every claim as it happens: the Redis time of its arrival here, and what it claimed. */
  function recordClaims(m: ReturnType<typeof env.manager>) {
    const claims: { at: Promise<number>; claims: readonly Claim[] }[] = [];
    m.hooks = { afterClaim: (c) => void claims.push({ at: redisNow(env.redis), claims: c }) };
    return claims;
  }

  it('claims ahead but enqueues each occurrence at its fire time by Redis time, never before', async () => {
    env = testEnv('ahead');
    // held in the replica (not committed ahead, see commit-ahead.test.ts): added at the fire time
    const m = env.manager({ claimLeaseMs: 2000, claimAheadMs: 300, commitAhead: false });
    for (let i = 0; i < 20; i++) {
      m.schedule({ name: 'tick' }, new IntervalTrigger(0.5, { anchor: i * 25 }), { id: `s${i}` });
    }
    const claims = recordClaims(m);
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await waitUntil(() => fired.length >= 60, 20_000);
    await m.stop();

    // Claimed well ahead: most claimed occurrences were more than 100 ms from their fire time.
    let ahead = 0;
    let total = 0;
    for (const c of claims) {
      const at = await c.at;
      for (const claim of c.claims) {
        total++;
        if (claim.fireAt - at > 100) ahead++;
      }
    }
    expect(total).toBeGreaterThanOrEqual(60);
    expect(ahead / total).toBeGreaterThan(0.5);

    // Yet enqueued at the fire time: BullMQ stamps each job when it is created, on this machine's
    // clock (Redis runs here too: the same clock, to the millisecond).
    const q = new Queue(env.queue, { connection: { url: REDIS_URL } });
    const jobs = await q.getJobs(['wait']);
    await q.close();
    const byId = new Map(jobs.map((j) => [j.id, j]));
    expect(fired.every((e) => e.lateMs >= 0)).toBe(true);
    for (const e of fired) {
      const job = byId.get(occurrenceJobId(e.scheduleId, e.fireAt));
      expect(job, `job of ${e.scheduleId} at ${e.fireAt}`).toBeDefined();
      expect(job!.timestamp).toBeGreaterThanOrEqual(e.fireAt - 1); // at its time, not at its claim
    }
    const ids = jobs.map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('stop() enqueues and completes what it has claimed ahead: nothing waits for a lease to lapse', async () => {
    env = testEnv('ahead-stop');
    const t = await manualTime();
    const m = env.manager({ claimLeaseMs: 20_000, claimAheadMs: 1000 });
    t.attach(m);
    m.schedule({ name: 'tick' }, new IntervalTrigger(1), { id: 'one' });
    let claimed: Claim | undefined;
    m.hooks = {
      ...m.hooks,
      afterClaim: (c) => {
        claimed ??= c.find((x) => x.fireAt > t.now()); // the first occurrence claimed ahead of its time
      },
    };
    await m.start();
    await t.advanceUntil(() => claimed !== undefined, 5000);
    await t.stop(m); // the occurrence claimed ahead was pending when it was called
    const fireAt = claimed!.fireAt;
    expect(t.now()).toBeGreaterThanOrEqual(fireAt); // stop waited for its fire time
    expect(await env.jobIds()).toContain(occurrenceJobId('one', fireAt));
    // Completed, not left claimed: the schedule is due again at its next time, with its record.
    const k = `{${env.prefix}}:bb`;
    expect(await env.redis.zscore(`${k}:inflight`, 'one')).toBeNull();
    expect(Number(await env.redis.zscore(`${k}:due`, 'one'))).toBe(fireAt + 1000);
    // the record: a hash of facts per occurrence (docs/records.md)
    expect(await env.redis.hgetall(`${k}:rec:one:${fireAt}`)).toMatchObject({ outcome: 'enqueued' });
  });

  it('a pause from another process drops the occurrence claimed ahead; resume carries on', async () => {
    env = testEnv('ahead-pause');
    const t = await manualTime();
    const m = env.manager({ claimLeaseMs: 20_000, claimAheadMs: 2000 });
    t.attach(m);
    m.schedule({ name: 'tick' }, new IntervalTrigger(3), { id: 'p' }); // claimed 2 s ahead
    const claimed: Claim[] = [];
    m.hooks = { ...m.hooks, afterClaim: (c) => void claimed.push(...c) };
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    const admin = env.manager({ role: 'client' }); // the dashboard or the CLI, say
    t.attach(admin);
    // An occurrence claimed well ahead (at least 1 s before its time), then paused from elsewhere.
    let target: Claim | undefined;
    await t.advanceUntil(
      () => {
        target = claimed.find((c) => c.fireAt > t.now() + 1000);
        return target !== undefined;
      },
      10_000,
      50,
    );
    expect(await admin.pause('p')).toBe(true);
    await heardStop(m);
    const fireAt = target!.fireAt;
    await t.advance(fireAt + 500 - t.now());
    expect(fired.map((e) => e.fireAt)).not.toContain(fireAt);
    expect(await env.jobIds()).not.toContain(occurrenceJobId('p', fireAt));
    const k = `{${env.prefix}}:bb`;
    expect(await env.redis.zscore(`${k}:inflight`, 'p')).toBeNull(); // its claim was completed
    expect(await env.redis.zscore(`${k}:due`, 'p')).toBeNull(); // and it stays paused
    expect(await admin.resume('p')).toBe(true);
    await t.advanceUntil(() => fired.some((e) => e.fireAt > fireAt), 15_000, 50);
    await t.stop(m);
  });

  it('a pause published while the subscriber was reconnecting still drops the occurrence claimed ahead', async () => {
    env = testEnv('ahead-pause-lost');
    const t = await manualTime();
    const m = env.manager({ claimLeaseMs: 20_000, claimAheadMs: 2000 });
    t.attach(m);
    m.schedule({ name: 'tick' }, new IntervalTrigger(3), { id: 'p' }); // claimed 2 s ahead
    const claimed: Claim[] = [];
    m.hooks = { ...m.hooks, afterClaim: (c) => void claimed.push(...c) };
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    const admin = env.manager({ role: 'client' });
    t.attach(admin);
    let target: Claim | undefined;
    await t.advanceUntil(
      () => {
        target = claimed.find((c) => c.fireAt > t.now() + 1000);
        return target !== undefined;
      },
      10_000,
      50,
    );
    // the replica's subscriber drops its connection (a network blip): the pause's notice is published
    // while it reconnects, and lost; the replica's recheck once resubscribed finds the pause
    const sub = internalsOf(m).wakeSubscriber!;
    sub.disconnect(true);
    expect(await admin.pause('p')).toBe(true);
    await heardStop(m);
    const fireAt = target!.fireAt;
    await t.advance(fireAt + 500 - t.now());
    expect(fired.map((e) => e.fireAt)).not.toContain(fireAt);
    expect(await env.jobIds()).not.toContain(occurrenceJobId('p', fireAt));
    await t.stop(m);
  });

  it('an occurrence claimed before a pause by a replica that then died is not taken over after the resume', async () => {
    env = testEnv('ahead-pause-dead');
    const t = await manualTime();
    // the claim is made 250 ms ahead and leased 1 s: the pause and the resume both land inside its lease
    const dying = env.manager({ claimAheadMs: 250 });
    t.attach(dying);
    dying.schedule({ name: 'tick' }, new IntervalTrigger(3), { id: 'p' });
    let held: Claim | undefined;
    const stalled = new Promise<void>((r) => {
      release = r;
    });
    dying.hooks = {
      ...dying.hooks,
      afterClaim: async (c) => {
        // the first occurrence claimed ahead of its time: on manual time a loaded box may make the first
        // claim at a fire time, and a claim of an occurrence due before the pause is rightly taken over
        const ahead = c.find((x) => x.fireAt > t.now());
        if (held || !ahead) return;
        held = ahead;
        void dying.stop();
        await t.hold(dying, stalled); // dead: it neither enqueues nor renews this claim
      },
    };
    await dying.start();
    await t.advanceUntil(() => held !== undefined, 10_000, 50);
    const admin = env.manager({ role: 'client' });
    t.attach(admin);
    expect(await admin.pause('p')).toBe(true);
    const fireAt = held!.fireAt;
    await t.advance(fireAt + 51 - t.now());
    expect(await admin.resume('p')).toBe(true); // before the dead claim's lease lapses
    const survivor = env.manager();
    t.attach(survivor);
    survivor.schedule({ name: 'tick' }, new IntervalTrigger(3), { id: 'p' });
    const fired: FiredEvent[] = [];
    survivor.on('fired', (e) => fired.push(e));
    await survivor.start();
    await t.advance(fireAt + 2001 - t.now()); // past the dead claim's lease
    await t.stop(survivor);
    expect(fired.map((e) => e.fireAt)).not.toContain(fireAt);
    expect(await env.jobIds()).not.toContain(occurrenceJobId('p', fireAt));
  });

  it('claimAheadMs: 0 claims only what is due, and still fires each occurrence on time', async () => {
    env = testEnv('ahead-zero');
    const t = await manualTime();
    const m = env.manager({ claimAheadMs: 0 });
    t.attach(m);
    m.every(0.2)(async function zero() {});
    // every claim, with the time it came at (manual time: Redis's clock as the replica sees it)
    const claims: { at: number; claims: readonly Claim[] }[] = [];
    m.hooks = { ...m.hooks, afterClaim: (c) => void claims.push({ at: t.now(), claims: c }) };
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await t.advanceUntil(() => fired.length >= 8, 5000);
    await t.stop(m);
    expect(claims.length).toBeGreaterThan(0);
    for (const c of claims) {
      for (const claim of c.claims) expect(claim.fireAt).toBeLessThanOrEqual(c.at);
    }
    const ats = fired.map((e) => e.fireAt);
    expect(new Set(ats).size).toBe(ats.length);
    for (let i = 1; i < ats.length; i++) expect(ats[i]! - ats[i - 1]!).toBe(200);
  });
});
