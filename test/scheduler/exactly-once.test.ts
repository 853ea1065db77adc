import { type Job, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { OccurrenceJobData } from '../../src/store/forms/job-payload.js';
import { keys } from '../../src/store/keys/keys.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { childFixture } from '../setup/child-fixtures.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, testEnv } from './helpers.js';
import { type ReplicaProcess, spawnReplicaProcess } from './replica-process.js';

const REPLICA = childFixture('test/scheduler/fixtures/replica.ts');
const CHAOS = process.env.BULLBEAT_SKIP_CHAOS !== '1';
// 15 s: about 8 kills; the default-configuration chaos (test/chaos, trust-chaos) covers the same ground
// with the defaults. BULLBEAT_CHAOS_SECONDS=300 for a long run.
const CHAOS_SECONDS = Number(process.env.BULLBEAT_CHAOS_SECONDS ?? 15);

const spawnReplica = (vars: Record<string, string>) => spawnReplicaProcess(REPLICA, { REDIS_URL, ...vars });

/**
 * A consumer that behaves like the bullbeat worker runtime for the purpose of these tests: it writes
 * the `running` record when it starts a job, and counts runs per occurrence. Finished jobs are removed
 * after KEEP_SEC, so a re-enqueue of an occurrence that already ran would run it a second time.
 */
function consumer(env: ReturnType<typeof testEnv>) {
  const runs = new Map<string, number>();
  const history = new RunHistory(env.redis, keys(env.prefix));
  const worker = new Worker<OccurrenceJobData>(
    env.queue,
    async (job: Job<OccurrenceJobData>) => {
      const { scheduleId, fireAt } = job.data;
      await history.merge(scheduleId, fireAt, false, { outcome: 'running', startedAt: Date.now() });
      const k = `${scheduleId}@${fireAt}`;
      runs.set(k, (runs.get(k) ?? 0) + 1);
    },
    { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, concurrency: 50 },
  );
  return { runs, worker };
}

/** Every (schedule, fireAt) of the replica fixture's grid in [from, to). */
function expected(count: number, from: number, to: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const anchor = Math.floor((i * 1000) / count);
    for (let t = Math.ceil((from - anchor) / 1000) * 1000 + anchor; t < to; t += 1000) out.push(`s${i}@${t}`);
  }
  return out;
}

function check(runs: Map<string, number>, want: string[]) {
  const lost = want.filter((k) => !runs.has(k));
  const twice = [...runs].filter(([, n]) => n > 1).map(([k]) => k);
  return { lost, twice };
}

describe('exactly once per occurrence', () => {
  let env: ReturnType<typeof testEnv>;
  const replicas: ReplicaProcess[] = [];
  afterEach(async () => {
    for (const r of replicas.splice(0)) r.child.kill('SIGKILL');
    await env.cleanup();
  });

  for (const step of ['claim', 'enqueue'] as const) {
    it(`a replica killed right after the ${step} step: its claims are taken over, each occurrence runs once`, async () => {
      env = testEnv(`crash-${step}`);
      const { runs, worker } = consumer(env);
      const vars = { PREFIX: env.prefix, QUEUE: env.queue, SCHEDULES: '50', LEASE_MS: '2500', KEEP_SEC: '1' };
      const doomed = spawnReplica({ ...vars, CRASH_AFTER: step });
      replicas.push(doomed);
      expect(await doomed.exited).toBe('SIGKILL');
      const t0 = await redisNow(env.redis); // every schedule exists by now (the crash came after a claim)
      const claimed = JSON.parse(doomed.out.match(/claimed (.*)/)![1]!) as [string, number][];
      expect(claimed.length).toBeGreaterThan(0);
      const survivor = spawnReplica(vars);
      replicas.push(survivor);
      // Timed from the survivor's start, not its spawn: on a loaded machine starting takes seconds.
      await waitUntil(() => survivor.out.includes('ready\n'), 30_000, { stepMs: 50 });
      const t1 = await redisNow(env.redis);
      const reclaimed = async () => Number(await env.redis.hget(keys(env.prefix).totals, 'reclaimed'));
      await waitUntil(async () => (await reclaimed()) >= claimed.length, 30_000, { stepMs: 100 }); // the lease (2.5 s) lapsed
      const t2 = await redisNow(env.redis);
      await waitUntil(async () => (await redisNow(env.redis)) > Math.max(t1 + 3000, t2 + 1000), 30_000, {
        stepMs: 100,
      });
      survivor.child.kill('SIGTERM');
      await survivor.exited;
      await new Promise((r) => setTimeout(r, 500));
      await worker.close();
      const stats = JSON.parse(survivor.out.match(/stats (.*)/)![1]!) as { reclaimed: number };
      expect(stats.reclaimed).toBeGreaterThanOrEqual(claimed.length);
      expect(Number(await env.redis.hget(keys(env.prefix).totals, 'reclaimed'))).toBe(stats.reclaimed);
      for (const [id, at] of claimed) expect(runs.get(`${id}@${at}`)).toBe(1);
      const { lost, twice } = check(runs, expected(50, t0, t1 + 2000));
      expect(twice).toEqual([]);
      expect(lost).toEqual([]);
    }, 60_000);
  }

  it.runIf(CHAOS)(
    `chaos: 3 replicas, 200 schedules every second, one SIGKILLed every 1-2 s for ${CHAOS_SECONDS} s`,
    async () => {
      env = testEnv('chaos');
      const { runs, worker } = consumer(env);
      const vars = {
        PREFIX: env.prefix,
        QUEUE: env.queue,
        SCHEDULES: '200',
        LEASE_MS: '1000',
        KEEP_SEC: '1',
        STEP_DELAY_MS: '40',
      };
      const live: ReplicaProcess[] = [];
      const launch = () => {
        const r = spawnReplica(vars);
        replicas.push(r);
        live.push(r);
      };
      for (let i = 0; i < 3; i++) launch();
      await waitUntil(() => live.every((r) => r.out.includes('ready')), 30_000, { stepMs: 50 });
      const t0 = await redisNow(env.redis);
      // The window is a number of kills as much as a time: on a loaded box a kill and its replacement
      // take longer, so the window runs on until the kills it promises have happened.
      const minKills = Math.floor(CHAOS_SECONDS / 2) - 1;
      let kills = 0;
      while ((await redisNow(env.redis)) < t0 + CHAOS_SECONDS * 1000 || kills < minKills) {
        await new Promise((r) => setTimeout(r, 1000 + Math.random() * 1000));
        // A replica that is up and firing (a fresh one takes a moment to load).
        const ready = live.filter((r) => r.out.includes('ready'));
        const pool = ready.length > 0 ? ready : live;
        const victim = pool[Math.floor(Math.random() * pool.length)]!;
        live.splice(live.indexOf(victim), 1);
        victim.child.kill('SIGKILL');
        await victim.exited;
        kills++;
        launch();
      }
      const t1 = await redisNow(env.redis);
      const want = expected(200, t0, t1);
      // Calm: leases lapse and are taken over (on a loaded machine the survivors may need a while to
      // catch up), then every replica stops cleanly.
      await waitUntil(async () => (await redisNow(env.redis)) > t1 + 3000, 30_000, { stepMs: 100 });
      await waitUntil(() => check(runs, want).lost.length === 0, 30_000, { stepMs: 100 }).catch(
        () => undefined,
      );
      for (const r of live) r.child.kill('SIGTERM');
      await Promise.all(live.map((r) => r.exited));
      await new Promise((r) => setTimeout(r, 1000));
      await worker.close();
      const { lost, twice } = check(runs, want);
      expect(want.length).toBeGreaterThanOrEqual(200 * (CHAOS_SECONDS - 1));
      expect(twice).toEqual([]);
      expect(lost).toEqual([]);
      // Nothing in the window was given up as missed either.
      const history = new RunHistory(env.redis, keys(env.prefix));
      expect((await history.totals()).missed).toBe(0);
      const reclaimed = await env.redis.hget(keys(env.prefix).totals, 'reclaimed');
      console.log(
        `chaos: ${kills} kills, ${want.length} occurrences, ${reclaimed ?? 0} claims taken over after a kill`,
      );
      // Kills landed between a claim and its completion (the step delay keeps replicas mid-fire).
      expect(Number(reclaimed ?? 0)).toBeGreaterThan(0);
    },
    CHAOS_SECONDS * 1000 + 90_000,
  );
});
