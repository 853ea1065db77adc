// replicaAcks: each enqueue WAITs for the queue master's replicas before its completion is written.
// On the cluster (every master has a replica) nothing is short; with the queue master's replica
// stopped (SIGSTOP), or on a single Redis without replicas, every WAIT is short, counted, and the
// occurrences are still enqueued.
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerMetrics } from '../../src/ops/scheduler-metrics.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { keySlot } from '../../src/store/keys/partitions.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { type LocalCluster, startCluster } from '../setup/redis-cluster.js';
import { startRedisServer } from '../setup/redis-server.js';
import { waitUntil } from '../wait-until.js';
import { clusterEnv, redisNow, silent } from './helpers.js';

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

/** The port of the master serving a slot, from CLUSTER NODES. */
async function masterOfSlot(slot: number): Promise<number> {
  const text = await cluster.cli(cluster.nodes[0]!.port, 'cluster', 'nodes');
  for (const line of text.trim().split('\n')) {
    const f = line.split(' ');
    if (!f[2]!.includes('master') || f[2]!.includes('fail')) continue;
    for (const range of f.slice(8)) {
      const [lo, hi = lo] = range.split('-').map(Number);
      if (slot >= lo! && slot <= hi!) return Number(f[1]!.split('@')[0]!.split(':')[1]);
    }
  }
  throw new Error(`no master serves slot ${slot}`);
}

describe('replicaAcks (WAIT after each enqueue)', () => {
  let env: ReturnType<typeof clusterEnv>;
  afterEach(async () => {
    await env?.cleanup();
  });

  it('on the cluster: a WAIT per enqueue, none short; with the queue master replica stopped, each is short and counted, and the occurrences still go', async () => {
    env = clusterEnv(cluster, 'acks');
    const { runs } = env.consumer();
    // 1 s: a healthy replica acknowledges well within it even on a busy box (200 ms was short twice there)
    const m = env.manager({ replicaAcks: { replicas: 1, timeoutMs: 1000 }, backpressure: false });
    for (let i = 0; i < 12; i++) {
      m.schedule({ name: 'tick' }, new IntervalTrigger(1, { anchor: i * 80 }), { id: `s${i}` });
    }
    await m.start();
    const t0 = await redisNow(env.redis);
    await waitUntil(async () => (await redisNow(env.redis)) > t0 + 2500, 20_000, { stepMs: 50 });
    const healthy = { ...internalsOf(m).loopStats! };
    expect(healthy.enqueued).toBeGreaterThanOrEqual(12);
    expect(healthy.replicaWaits).toBeGreaterThan(0);
    expect(healthy.underAcked).toBe(0);
    expect(healthy.errors).toBe(0); // the first enqueue too: the queue's slot map is known before its adds

    // the replica of the master holding the queue's slot stops acknowledging
    const master = await masterOfSlot(keySlot(`{bull:${env.queue}}`));
    const replica = (await cluster.roles()).replicaOf.get(master)!;
    const node = cluster.nodes.find((n) => n.port === replica)!;
    node.child.kill('SIGSTOP');
    try {
      await waitUntil(() => internalsOf(m).loopStats!.underAcked >= 3, 30_000, { stepMs: 20 });
    } finally {
      node.child.kill('SIGCONT');
    }
    const stopped = { ...internalsOf(m).loopStats! };
    expect(stopped.enqueued).toBeGreaterThan(healthy.enqueued);
    await m.stop();
    // every enqueue completed counted its WAIT; the short ones are a part of them
    expect(stopped.underAcked).toBeLessThanOrEqual(stopped.replicaWaits);
    // what was enqueued while short ran once (nothing lost, nothing twice)
    await waitUntil(() => runs.size >= stopped.enqueued, 20_000, { stepMs: 50 });
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
  }, 60_000);

  it('on a single Redis without replicas: every WAIT is short (counted), the occurrences still go', async () => {
    const server = await startRedisServer();
    const m = new SchedulerManager({
      connection: server.url,
      prefix: 'acks-single',
      logger: silent,
      replicaAcks: { replicas: 1, timeoutMs: 20 },
      backpressure: false,
    });
    try {
      for (let i = 0; i < 5; i++) {
        m.schedule({ name: 'tick' }, new IntervalTrigger(1, { anchor: i * 200 }), { id: `s${i}` });
      }
      await m.start();
      await waitUntil(() => (internalsOf(m).loopStats?.enqueued ?? 0) >= 8, 20_000, { stepMs: 20 });
      await m.stop();
      const s = internalsOf(m).loopStats!;
      expect(s.replicaWaits).toBeGreaterThan(0);
      expect(s.underAcked).toBe(s.replicaWaits);
      expect(s.errors).toBe(0);
      // and in the metrics
      const registry = new Registry();
      new SchedulerMetrics(registry, m);
      const value = async (name: string) =>
        (await registry.getSingleMetric(name)!.get()).values.reduce((a, v) => a + v.value, 0);
      expect(await value('bullbeat_replica_waits_total')).toBe(s.replicaWaits);
      expect(await value('bullbeat_replica_acks_short_total')).toBe(s.underAcked);
    } finally {
      await m.close();
      await server.stop();
    }
  }, 60_000);
});
