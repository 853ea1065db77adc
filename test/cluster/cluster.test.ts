import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../../src/queue/create-worker.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { keys } from '../../src/store/keys/keys.js';
import { keySlot } from '../../src/store/keys/partitions.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { assertBuilt, runBullbeat } from '../cli/run-bullbeat.js';
import { type LocalCluster, startCluster } from '../setup/redis-cluster.js';
import { waitUntil } from '../wait-until.js';
import { clusterEnv, keysPerMaster, redisNow, silent } from './helpers.js';

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describe('on a Redis Cluster (3 masters, 3 replicas)', () => {
  let env: ReturnType<typeof clusterEnv>;
  afterEach(async () => {
    await env?.cleanup();
    delete process.env.REDIS_CLUSTER_NODES;
  });

  it('REDIS_CLUSTER_NODES wins over REDIS_URL; partitions default to 32 there, 1 on a single Redis', () => {
    process.env.REDIS_CLUSTER_NODES = cluster.nodesText;
    const m = new SchedulerManager({ logger: silent });
    expect(internalsOf(m).options.target.cluster?.nodes.length).toBe(6);
    expect(internalsOf(m).partitions).toBe(32);
    expect(internalsOf(m).queuePrefixFor('emails')).toBe('{bull:emails}');
    delete process.env.REDIS_CLUSTER_NODES;
    const single = new SchedulerManager({ logger: silent });
    expect(internalsOf(single).options.target.cluster).toBeUndefined();
    expect(internalsOf(single).partitions).toBe(1);
    expect(internalsOf(single).queuePrefixFor('emails')).toBeUndefined();
    process.env.REDIS_CLUSTER_NODES = '127.0.0.1:notaport';
    expect(() => new SchedulerManager({ logger: silent })).toThrow(/REDIS_CLUSTER_NODES.*host:port/);
  });

  it('two replicas, 120 schedules every second: each occurrence runs once, spread over every partition and master', async () => {
    env = clusterEnv(cluster, 'spread');
    const { runs } = env.consumer();
    // every occurrence counted: a consumer slowed by a loaded box must not have any coalesced
    const [a, b] = [env.manager({ backpressure: false }), env.manager({ backpressure: false })];
    for (const m of [a, b]) {
      for (let i = 0; i < 120; i++) {
        m.schedule({ name: 'tick' }, new IntervalTrigger(1, { anchor: (i * 37) % 1000 }), { id: `s${i}` });
      }
    }
    await Promise.all([a.start(), b.start()]);
    const t0 = await redisNow(env.redis);
    const want: string[] = [];
    for (let i = 0; i < 120; i++) {
      const anchor = (i * 37) % 1000;
      for (let t = Math.ceil((t0 + 500 - anchor) / 1000) * 1000 + anchor; t < t0 + 3000; t += 1000)
        want.push(`s${i}@${t}`);
    }
    // Until every occurrence of the window ran (a loaded box fires, enqueues and consumes late:
    // waited for, not timed), and the window is well past.
    await waitUntil(async () => (await redisNow(env.redis)) > t0 + 3500, 30_000, { stepMs: 100 });
    await waitUntil(() => want.every((k) => runs.has(k)), 45_000, { stepMs: 100 }).catch(() => undefined);
    // Both replicas fire, but not necessarily within the first seconds: a replica whose claim finds
    // every occurrence of a partition claimed by the other (at start, when the first claim takes all
    // that came due meanwhile) claims that partition again only when that claim's lease would lapse
    // (claimLeaseMs, 5 s). So run until each has enqueued, within a few leases.
    await waitUntil(
      () => internalsOf(a).loopStats!.enqueued > 0 && internalsOf(b).loopStats!.enqueued > 0,
      15_000,
      { stepMs: 100 },
    ).catch(() => undefined);
    await Promise.all([a.stop(), b.stop()]);
    expect(want.filter((k) => !runs.has(k))).toEqual([]);
    expect([...runs].filter(([, n]) => n > 1)).toEqual([]);
    // both replicas fired, from the partitions of every master
    expect(internalsOf(a).loopStats!.enqueued).toBeGreaterThan(0);
    expect(internalsOf(b).loopStats!.enqueued).toBeGreaterThan(0);
    const per = await keysPerMaster(cluster, env.prefix);
    expect(per.size).toBe(3);
    for (const { keys: n } of per.values()) expect(n).toBeGreaterThan(0);
    // stats, list and history read every partition
    const stats = await a.stats();
    expect(stats.jobsTotal).toBe(120);
    expect(stats.jobsActive).toBe(120);
    expect((await a.list({})).length).toBe(120);
    expect((await a.history('s7')).length).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('each schedule is in one partition: its keys share a slot; the deployment-wide ones are under {prefix}', () => {
    const k = keys('app', 24);
    const slots = new Set<number>();
    for (let i = 0; i < 24; i++) {
      const p = k.partition(i);
      const s = keySlot(p.due);
      for (const key of [
        p.schedules,
        p.state,
        p.inflight,
        p.claim,
        p.totals,
        p.completed,
        p.errors,
        p.resched,
      ])
        expect(keySlot(key)).toBe(s);
      // the i-th 24th of the slot space: 8 per master on a 3-master cluster
      expect(Math.floor(s / (16384 / 24))).toBe(i);
      slots.add(s);
    }
    expect(slots.size).toBe(24);
    const id = 'daily-report';
    const own = k.of(id);
    for (const key of [
      k.runs(id),
      k.record(id, '1000'),
      k.runIndex(id),
      k.counts(id),
      k.lease(id),
      k.leaseOwed(id),
    ])
      expect(keySlot(key)).toBe(keySlot(own.due));
    expect(keySlot(k.group('g'))).toBe(keySlot(k.wake));
    expect(keySlot(k.groupQueue('g'))).toBe(keySlot('{app}'));
    // one partition: the key names of earlier releases
    const one = keys('app');
    expect([one.due, one.runs('x'), one.wake]).toEqual(['{app}:bb:due', '{app}:bb:runs:x', '{app}:bb:wake']);
    expect(() => k.due).toThrow(/partitions/);
  });

  it('pause and resume, a second start with another partition count refused', async () => {
    env = clusterEnv(cluster, 'pause');
    const { runs } = env.consumer();
    const m = env.manager();
    const job = m.schedule({ name: 'tick' }, new IntervalTrigger(0.2), { id: 'p1' });
    await m.start();
    await waitUntil(() => [...runs.keys()].some((k) => k.startsWith('p1@')), 10_000);
    await job.pause();
    const paused = await redisNow(env.redis);
    await new Promise((r) => setTimeout(r, 700));
    expect([...runs.keys()].filter((k) => Number(k.split('@')[1]) > paused + 100)).toEqual([]);
    await job.resume();
    await waitUntil(() => [...runs.keys()].some((k) => Number(k.split('@')[1]) > paused + 700), 10_000);
    const other = env.manager({ partitions: 8 });
    await expect(other.start()).rejects.toThrow(/partitions.*32/);
  }, 30_000);

  it("bullbeat's worker runtime runs handlers on the cluster (records, overlap lease, exclusion group)", async () => {
    env = clusterEnv(cluster, 'worker');
    const m = env.manager();
    const ran: number[] = [];
    m.every(0.3, { id: 'w1', exclusionGroup: 'g' })(async function w1() {
      ran.push(Date.now());
    });
    await m.start();
    const worker = await createWorker(m, { concurrency: 4 });
    try {
      await waitUntil(() => ran.length >= 3, 15_000);
      await waitUntil(async () => (await m.history('w1')).some((r) => r.outcome === 'succeeded'), 10_000);
    } finally {
      await worker.close();
    }
  }, 30_000);

  it('the CLI on the cluster: --redis-cluster-nodes (or REDIS_CLUSTER_NODES) lists, pauses, finds the prefix', async () => {
    assertBuilt();
    env = clusterEnv(cluster, 'cli');
    const m = env.manager({ role: 'client' });
    for (let i = 0; i < 30; i++) m.schedule({ name: 'tick' }, new IntervalTrigger(60), { id: `c${i}` });
    await m.start();
    const list = await runBullbeat([
      'schedule:list',
      '--json',
      '--redis-cluster-nodes',
      cluster.nodesText,
      '--prefix',
      env.prefix,
    ]);
    expect(list.stderr).toBe('');
    expect((JSON.parse(list.stdout) as unknown[]).length).toBe(30);
    const pause = await runBullbeat(['schedule:pause', 'c3', '--prefix', env.prefix], {
      env: { REDIS_CLUSTER_NODES: cluster.nodesText },
    });
    expect(pause.code).toBe(0);
    expect((await m.get('c3'))?.status).toBe('paused');
    // no --prefix: the deployments are found by scanning every master, each named once (not per partition)
    const found = await runBullbeat(['schedule:list'], { env: { REDIS_CLUSTER_NODES: cluster.nodesText } });
    const named = /several bullbeat deployments \((.*)\)/.exec(found.stderr)?.[1]?.split(', ') ?? [];
    expect(named).toContain(env.prefix);
    expect(named.filter((p) => p.startsWith(`${env.prefix}:`))).toEqual([]);
    const bad = await runBullbeat(['schedule:list', '--redis-cluster-nodes', '127.0.0.1:x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--redis-cluster-nodes/);
  }, 60_000);

  it("misfire on the cluster: 'once' after every scheduler was down runs one catch-up and records the rest as missed", async () => {
    env = clusterEnv(cluster, 'misfire');
    const define = (m: SchedulerManager) =>
      // a 1 s interval with 500 ms of grace: a loaded box's own lateness is no misfire
      m.schedule(async function late() {}, new IntervalTrigger(1), {
        misfire: 'once',
        misfireGraceMs: 500,
      });
    // no consumer here: backpressure off, or the second occurrence on would be coalesced
    const a = env.manager({ backpressure: false });
    define(a);
    let lastBefore = 0;
    a.on('fired', (e) => (lastBefore = Math.max(lastBefore, e.fireAt)));
    await a.start();
    await waitUntil(() => lastBefore > 0);
    await a.stop();
    const stoppedAt = await redisNow(env.redis);
    await waitUntil(async () => (await redisNow(env.redis)) > stoppedAt + 6500, 15_000, { stepMs: 50 });
    const b = env.manager({ backpressure: false });
    define(b);
    const restartAt = await redisNow(env.redis);
    let onTime = 0;
    b.on('fired', (e) => {
      if (e.kind === 'scheduled' && e.fireAt > restartAt) onTime = onTime || e.fireAt;
    });
    await b.start();
    await waitUntil(() => onTime > 0, 10_000);
    const records = (await b.history('late')).filter((r) => r.fireAt > lastBefore && r.fireAt < onTime);
    const catchUp = records.filter((r) => r.kind === 'catch-up');
    // seen once in ~10 loaded runs: a catch-up standing for 2, not 5 or more; this says what happened
    const timeline = JSON.stringify({
      lastBefore,
      stoppedAt,
      restartAt,
      onTime,
      records: (await b.history('late')).map((r) => [r.fireAt, r.kind, r.outcome, r.reason, r.coalesced]),
    });
    expect(catchUp.length, timeline).toBe(1);
    expect(catchUp[0]!.coalesced, timeline).toBeGreaterThanOrEqual(5);
    expect(records.filter((r) => r.outcome === 'missed').length).toBe(catchUp[0]!.coalesced! - 1);
    expect((await b.history.counts('late')).missed).toBeGreaterThanOrEqual(4);
  }, 30_000);
});
