import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { childFixture } from '../setup/child-fixtures.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, testEnv } from './helpers.js';
import { spawnReplicaProcess } from './replica-process.js';

const REPLICA = childFixture('test/scheduler/fixtures/replica.ts');

/**
 * failover.test.ts across processes: replica processes stopped (SIGTERM) and killed (SIGKILL) in turn,
 * each replaced, and how late the occurrences due just after each are enqueued. A file of its own, so
 * that the chaos tier's lanes share its 30 s with the others.
 */
describe('failover across processes', () => {
  let env: ReturnType<typeof testEnv>;
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    await env.cleanup();
  });

  /** A replica process of the exactly-once fixture (each schedule every second, phases spread). */
  const spawnReplica = (vars: Record<string, string>) =>
    spawnReplicaProcess(REPLICA, { REDIS_URL, ...vars }, children);

  it('across processes: after SIGTERM within claimAheadMs + 1 s, after SIGKILL within the lease + 1 s', async () => {
    env = testEnv('failover-proc');
    const leaseMs = 1000;
    const vars = { PREFIX: env.prefix, QUEUE: env.queue, SCHEDULES: '20', LEASE_MS: String(leaseMs) };
    const q = new Queue(env.queue, { connection: { url: REDIS_URL } });
    let pair = [spawnReplica(vars), spawnReplica(vars)];
    await waitUntil(() => pair.every((r) => r.ready()), 30_000, { stepMs: 50 });
    const worst: Record<string, number> = { SIGTERM: 0, SIGKILL: 0 };
    for (const signal of ['SIGTERM', 'SIGKILL', 'SIGTERM', 'SIGKILL'] as const) {
      await new Promise((r) => setTimeout(r, 1500));
      const [victim, survivor] = pair as [(typeof pair)[0], (typeof pair)[0]];
      victim.child.kill(signal);
      await victim.exited;
      const killedAt = await redisNow(env.redis);
      await new Promise((r) => setTimeout(r, leaseMs + 1500));
      // every occurrence due in the second after the kill: enqueued (BullMQ stamps the job) how late?
      // (committed ahead, a job waits in the delayed set until a worker promotes it: none runs here)
      const jobs = (await q.getJobs(['delayed', 'wait', 'active', 'completed'])).filter(
        (j) => j !== undefined,
      );
      const window = jobs.filter((j) => {
        const fireAt = (j.data as { fireAt: number }).fireAt;
        return fireAt > killedAt && fireAt <= killedAt + 1000;
      });
      expect(window.length, `${signal}: occurrences after the kill`).toBe(20);
      for (const j of window) {
        worst[signal] = Math.max(worst[signal]!, j.timestamp - (j.data as { fireAt: number }).fireAt);
      }
      const next = spawnReplica(vars);
      await waitUntil(() => next.ready(), 30_000, { stepMs: 50 });
      pair = [survivor, next];
    }
    await q.close();
    expect(worst.SIGTERM, `worst lateness after SIGTERM: ${worst.SIGTERM} ms`).toBeLessThanOrEqual(50 + 1000);
    expect(worst.SIGKILL, `worst lateness after SIGKILL: ${worst.SIGKILL} ms`).toBeLessThanOrEqual(
      leaseMs + 1000,
    );
  }, 120_000);
});
