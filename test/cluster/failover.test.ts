// Exactly once on a Redis Cluster: a replica process SIGKILLed mid-fire, bounded chaos, a graceful
// CLUSTER FAILOVER, and a master SIGKILLed (its replica promoted after cluster-node-timeout).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefixFor } from '../../src/store/connection/redis-target.js';
import { keySlot } from '../../src/store/keys/partitions.js';
import { type ChaosPlan, describeChaos, runChaos } from '../chaos/default-chaos.js';
import { expectKept } from '../chaos/expect-kept.js';
import { type ReplicaProcess, spawnReplicaProcess } from '../scheduler/replica-process.js';
import { childFixture } from '../setup/child-fixtures.js';
import { type LocalCluster, startCluster } from '../setup/redis-cluster.js';
import { waitUntil } from '../wait-until.js';
import { clusterEnv, masterOfSlot, redisNow } from './helpers.js';

const REPLICA = childFixture('test/scheduler/fixtures/replica.ts');
const CHAOS_SECONDS = Number(process.env.BULLBEAT_CLUSTER_CHAOS_SECONDS ?? 15);

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startCluster({ nodeTimeoutMs: 1000 });
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

const spawnReplica = (vars: Record<string, string>) =>
  spawnReplicaProcess(REPLICA, { CLUSTER_NODES: cluster.nodesText, ...vars });

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
  return {
    lost: want.filter((k) => !runs.has(k)),
    twice: [...runs].filter(([, n]) => n > 1).map(([k]) => k),
  };
}

describe('exactly once on a Redis Cluster', () => {
  let env: ReturnType<typeof clusterEnv>;
  const replicas: ReplicaProcess[] = [];
  afterEach(async () => {
    for (const r of replicas.splice(0)) r.child.kill('SIGKILL');
    await env?.cleanup();
  });

  /** Replicas firing SCHEDULES every second into a plain consumer; `during` runs mid-way. */
  async function run(
    tag: string,
    options: { replicas: number; schedules: number; seconds: number; during(t0: number): Promise<void> },
  ) {
    env = clusterEnv(cluster, tag);
    const { runs, state } = env.consumer();
    const vars = {
      PREFIX: env.prefix,
      QUEUE: env.queue,
      SCHEDULES: String(options.schedules),
      LEASE_MS: '1500',
      KEEP_SEC: '30',
    };
    const live = Array.from({ length: options.replicas }, () => spawnReplica(vars));
    replicas.push(...live);
    await waitUntil(() => live.every((r) => r.out.includes('ready')), 30_000, { stepMs: 50 });
    const t0 = await redisNow(env.redis);
    await options.during(t0);
    await waitUntil(async () => (await redisNow(env.redis)) > t0 + options.seconds * 1000, 60_000, {
      stepMs: 100,
    });
    const t1 = await redisNow(env.redis);
    const want = expected(options.schedules, t0 + 1000, t1);
    // settled: every occurrence ran, or none of those missing has run for 5 s (a master SIGKILL may lose
    // some for good: waiting the whole 20 s for them cost each such run 15 s)
    let missing = Number.POSITIVE_INFINITY;
    let since = Date.now();
    await waitUntil(
      () => {
        const { lost } = check(runs, want);
        if (lost.length < missing) [missing, since] = [lost.length, Date.now()];
        return lost.length === 0 || Date.now() - since > 5000;
      },
      20_000,
      { stepMs: 100 },
    ).catch(() => undefined);
    const consumer = await state();
    const nodes = await cluster.roles().catch((err: Error) => err.message);
    for (const r of live) r.child.kill('SIGTERM');
    await Promise.all(live.map((r) => r.exited));
    // what a stalled consumer or a wedged node looks like, for the failure message
    const diagnostics = JSON.stringify({ consumer, nodes }, (_k, v) => (v instanceof Map ? [...v] : v));
    return { ...check(runs, want), want, diagnostics };
  }

  it('a replica process SIGKILLed right after its claim: its claims are taken over, each occurrence runs once', async () => {
    env = clusterEnv(cluster, 'crash');
    const { runs } = env.consumer();
    const vars = { PREFIX: env.prefix, QUEUE: env.queue, SCHEDULES: '48', LEASE_MS: '2000', KEEP_SEC: '30' };
    const doomed = spawnReplica({ ...vars, CRASH_AFTER: 'claim' });
    replicas.push(doomed);
    expect(await doomed.exited).toBe('SIGKILL');
    const t0 = await redisNow(env.redis);
    const claimed = JSON.parse(doomed.out.match(/claimed (.*)/)![1]!) as [string, number][];
    expect(claimed.length).toBeGreaterThan(0);
    const survivor = spawnReplica(vars);
    replicas.push(survivor);
    await waitUntil(() => survivor.out.includes('ready\n'), 30_000, { stepMs: 50 });
    const t1 = await redisNow(env.redis);
    await waitUntil(async () => claimed.every(([id, at]) => runs.has(`${id}@${at}`)), 30_000, {
      stepMs: 100,
    });
    await waitUntil(async () => (await redisNow(env.redis)) > t1 + 3000, 30_000, { stepMs: 100 });
    survivor.child.kill('SIGTERM');
    await survivor.exited;
    await new Promise((r) => setTimeout(r, 500));
    for (const [id, at] of claimed) expect(runs.get(`${id}@${at}`)).toBe(1);
    const { lost, twice } = check(runs, expected(48, t0, t1 + 2000));
    expect(twice).toEqual([]);
    expect(lost).toEqual([]);
  }, 90_000);

  it(`chaos in the default configuration: 3 replicas, 120 schedules every second, one SIGKILLed every 1-2 s for ${CHAOS_SECONDS} s`, async () => {
    const plan: ChaosPlan = {
      where: { clusterNodes: cluster.nodesText },
      replicas: 3,
      schedules: 120,
      aligned: false,
      seconds: CHAOS_SECONDS,
      kills: 'churn',
      minKills: Math.floor(CHAOS_SECONDS / 3),
    };
    const r = await runChaos(plan);
    console.log(`cluster chaos: ${describeChaos(plan, r)}`);
    expect(r.kills).toBeGreaterThanOrEqual(Math.floor(CHAOS_SECONDS / 3));
    expectKept(plan, r);
  }, 300_000);

  it('a graceful CLUSTER FAILOVER on a replica mid-run: 0 lost, 0 twice', async () => {
    const { lost, twice, want } = await run('failover', {
      replicas: 2,
      schedules: 90,
      seconds: 8,
      during: async (t0) => {
        await waitUntil(async () => (await redisNow(env.redis)) > t0 + 2500, 20_000, { stepMs: 50 });
        const { replicaOf } = await cluster.roles();
        const [master, replica] = [...replicaOf][0]!;
        expect(await cluster.cli(replica, 'cluster', 'failover')).toMatch(/OK/);
        // promoted, and the old master now its replica
        await waitUntil(
          async () => {
            const { masters } = await cluster.roles();
            return masters.includes(replica) && !masters.includes(master);
          },
          20_000,
          { stepMs: 100 },
        );
      },
    });
    expect(want.length).toBeGreaterThan(90 * 6);
    expect(twice).toEqual([]);
    expect(lost).toEqual([]);
  }, 120_000);

  it("the master of the queue's slot SIGKILLed mid-run, its replica promoted: 0 twice; what async replication lost is counted", async () => {
    const { lost, twice, want, diagnostics } = await run('master-kill', {
      replicas: 2,
      schedules: 90,
      seconds: 10,
      during: async (t0) => {
        await waitUntil(async () => (await redisNow(env.redis)) > t0 + 2500, 20_000, { stepMs: 50 });
        // the master of the queue's slot: the consumer's blocking read waits on it when it dies
        const { replicaOf } = await cluster.roles();
        const victim = await masterOfSlot(
          cluster,
          keySlot(`${queuePrefixFor(env.target, env.queue)}:marker`),
        );
        const heir = replicaOf.get(victim);
        if (heir === undefined) throw new Error(`the victim ${victim} has no replica to promote`);
        await cluster.kill(victim);
        await waitUntil(async () => (await cluster.roles()).masters.includes(heir), 30_000, { stepMs: 100 });
        await cluster.waitOk();
      },
    });
    console.log(
      `cluster master SIGKILL: ${want.length} occurrences, ${lost.length} lost (async replication), ${twice.length} twice; ${diagnostics}`,
    );
    expect(twice).toEqual([]);
    // a loss needs a write acknowledged by the master and not yet replicated when it died: rare. A
    // consumer that stopped taking jobs after the failover shows here as handlers entered = left, jobs
    // waiting or delayed, the worker running and not paused, its calls in flight named (BullMQ 6.7 on
    // ioredis's own Cluster: 4 of 11 runs under CPU load; BullCluster's two fixes, see bull-cluster.ts)
    expect(lost.length, diagnostics).toBeLessThan(want.length / 20);
  }, 120_000);
});
