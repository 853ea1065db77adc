// The schedule controls and the worker runtime's run path on a Redis Cluster with 24 partitions:
// each reads and writes its schedule's partition (one slot per script), so none of them meets a
// CROSSSLOT error, and what they store is found again by the readers that span every partition.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { type LocalCluster, startCluster } from '../setup/redis-cluster.js';
import { waitUntil } from '../wait-until.js';
import { clusterEnv, redisNow } from './helpers.js';

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describe('schedule controls on a Redis Cluster (24 partitions)', () => {
  let env: ReturnType<typeof clusterEnv>;
  let worker: WorkerHandle | undefined;
  afterEach(async () => {
    await worker?.close({ graceMs: 500 });
    worker = undefined;
    await env?.cleanup();
  });

  it('pause with a note, list it, resume with policy once; update; a dry-run and a real backfill', async () => {
    env = clusterEnv(cluster, 'controls', 24);
    const m = env.manager();
    const ran: string[] = [];
    m.handle('tick', (ctx: { fireAt: number; kind?: string }) => {
      ran.push(`${ctx.kind ?? 'scheduled'}@${ctx.fireAt}`);
    });
    await m.start();
    // several schedules, so that they land in different partitions
    const ids = Array.from({ length: 8 }, (_, i) => `c${i}`);
    for (const id of ids) await m.schedule({ name: 'tick' }, new IntervalTrigger(3600), { id }).saved;
    expect(new Set(ids.map((id) => env.keys.partitionOf(id))).size).toBeGreaterThan(1);

    for (const id of ids) expect(await m.pause(id, { note: `maintenance of ${id}` })).toBe(true);
    const listed = await m.list();
    expect(listed.filter((j) => ids.includes(j.id)).map((j) => j.pauseNote?.note)).toEqual(
      ids.map((id) => `maintenance of ${id}`),
    );
    expect(await m.resume('c0', { policy: 'once' })).toBe(true);
    expect((await m.get('c0'))?.pauseNote ?? null).toBeNull();

    const updated = await m.update('c1', { trigger: new CronTrigger('0 3 * * *') });
    expect(updated.id).toBe('c1');
    // each trail in its partition: the create (first kept in the partition's first-entry hash) then the rest
    expect((await m.auditTrail('c1')).map((e) => e.op)).toEqual(['update', 'pause', 'create']);
    expect((await m.auditTrail('c0')).map((e) => e.op)).toEqual(['resume', 'pause', 'create']);
    expect((await m.auditTrail('c1'))[2]?.definition?.trigger).toEqual({ type: 'interval', seconds: 3600 });

    const now = await redisNow(env.redis);
    const from = now - 5 * 3_600_000;
    const dry = await m.backfill('c2', { from, to: now, dryRun: true });
    expect(dry.occurrences.length).toBeGreaterThanOrEqual(4);
    worker = await createWorker(m, { concurrency: 4 });
    const real = await m.backfill('c2', { from, to: now, ratePerSecond: 1000, overlap: 'allowAll' });
    expect(real.enqueued).toBe(dry.occurrences.length);
    await waitUntil(() => ran.filter((r) => r.startsWith('backfill@')).length === real.enqueued, 20_000);
    // the runs of a burst have their outcomes written behind it (docs/records.md): within a second
    const succeeded = async () =>
      (await m.history('c2')).filter((r) => r.kind === 'backfill' && r.outcome === 'succeeded').length;
    await waitUntil(async () => (await succeeded()) >= real.enqueued, 5_000, { what: 'the outcomes' });
    expect(await succeeded()).toBe(real.enqueued);
  }, 60_000);

  it('the run path (lease, fencing token, outcome) and pauseOnFailure write their partition', async () => {
    env = clusterEnv(cluster, 'runpath', 24);
    const m = env.manager();
    const tokens: number[] = [];
    m.every(1, { id: 'flaky', pauseOnFailure: 2, overlap: 'bufferOne' })(async function flaky(ctx: {
      fencingToken?: number;
    }) {
      tokens.push(ctx.fencingToken ?? -1);
      throw new Error('always fails');
    });
    await m.start();
    worker = await createWorker(m, { concurrency: 2 });
    await waitUntil(async () => (await m.get('flaky'))?.status === 'paused', 20_000, { stepMs: 100 });
    const job = await m.get('flaky');
    expect(job?.pauseNote?.by).toBe('pauseOnFailure');
    expect(job?.pauseNote?.note).toMatch(/always fails/);
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    expect(tokens.slice(0, 2)).toEqual([...tokens.slice(0, 2)].sort((a, b) => a - b));
    expect(tokens[1]!).toBeGreaterThan(tokens[0]!);
  }, 60_000);

  it('catch-up and backfill runs taken by a process that died are enqueued by a replica, partition by partition', async () => {
    env = clusterEnv(cluster, 'owed', 24);
    const crashed = env.manager({ role: 'client', claimLeaseMs: 400 });
    const ids = Array.from({ length: 6 }, (_, i) => `o${i}`);
    for (const id of ids) await crashed.schedule({ name: 'tick' }, new IntervalTrigger(0.1), { id }).saved;
    expect(new Set(ids.map((id) => env.keys.partitionOf(id))).size).toBeGreaterThan(1);
    for (const id of ids) await crashed.pause(id);
    await new Promise((r) => setTimeout(r, 350));
    const to = await redisNow(env.redis);
    // it stops for good right after each script: nothing reaches BullMQ
    internalsOf(crashed).queue = () => ({ addBulk: () => new Promise(() => {}) }) as never;
    for (const id of ids.slice(0, 3)) void crashed.resume(id, { policy: 'all' });
    for (const id of ids.slice(3)) await crashed.startBackfill(id, { from: to - 300, to });
    await waitUntil(async () => (await crashed.get('o2'))?.status === 'active');
    const replica = env.manager({ claimLeaseMs: 400 });
    await replica.start();
    const enqueued = async (id: string) =>
      (await replica.history(id)).filter((r) => r.kind !== 'scheduled' && r.outcome === 'enqueued').length;
    await waitUntil(async () => (await Promise.all(ids.map(enqueued))).every((n) => n >= 2), 15_000, {
      stepMs: 100,
    });
    for (const id of ids.slice(0, 3)) {
      expect((await replica.history(id)).some((r) => r.kind === 'catch-up')).toBe(true);
    }
    for (const id of ids.slice(3)) {
      expect((await replica.history(id)).some((r) => r.kind === 'backfill')).toBe(true);
    }
  }, 60_000);
});
