// The data format on a Redis Cluster: the first scheduler replica records it in the slot of the
// deployment-wide keys ({prefix}); with a newer format stored there, a replica and a worker refuse
// to start naming both; a worker's graceful close releases its queue (release-queue-1, the queue's slot).
// A deployment of format 1 over 32 partitions is upgraded by its first writer: each idle schedule's
// one-entry trail moved into its partition's first-entry hash (compact-audit-3, the partition's slot).
// One of format 2 likewise: each partition's index of every schedule by name (`names`) deleted, its
// queue indexes completed first where they were not (repair-index-3, list-counts-1 in its slot), every
// list read the same before and after.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DataFormatError } from '../../src/errors/index.js';
import { createWorker } from '../../src/queue/create-worker.js';
import { queueOwnerKey } from '../../src/store/bullmq/queue-owner.js';
import { DATA_FORMAT } from '../../src/store/deployment/data-format.js';
import { keySlot } from '../../src/store/keys/partitions.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { type LocalCluster, startCluster } from '../setup/redis-cluster.js';
import { clusterEnv, silent } from './helpers.js';

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describe('the data format on a Redis Cluster', () => {
  let env: ReturnType<typeof clusterEnv>;
  afterEach(async () => {
    await env?.cleanup();
  });

  it('recorded at the first start in the {prefix} slot; a newer one refused by a replica and a worker', async () => {
    env = clusterEnv(cluster, 'format');
    expect(keySlot(env.keys.dataFormat)).toBe(keySlot(env.keys.partitionCount));
    const first = env.manager();
    first.every(60, { id: 'tick', name: 'tick' })(() => undefined);
    await first.start();
    expect(await env.redis.get(env.keys.dataFormat)).toBe(String(DATA_FORMAT));
    // a worker of this release starts, holds its queue, and lets it go at its graceful close
    const worker = await createWorker(first, { queues: [env.queue], logger: silent });
    const owner = queueOwnerKey(`{bull:${env.queue}}`, env.queue);
    expect(await env.redis.get(owner)).toBe(env.prefix);
    await worker.close();
    expect(await env.redis.exists(owner)).toBe(0);
    await first.stop();

    await env.redis.set(env.keys.dataFormat, String(DATA_FORMAT + 1));
    const second = env.manager();
    second.every(60, { id: 'tick', name: 'tick' })(() => undefined);
    const err = (await second.start().catch((e: unknown) => e)) as DataFormatError;
    expect(err).toBeInstanceOf(DataFormatError);
    expect([err.stored, err.known]).toEqual([DATA_FORMAT + 1, DATA_FORMAT]);
    await expect(createWorker(second, { queues: [env.queue], logger: silent })).rejects.toBeInstanceOf(
      DataFormatError,
    );
  }, 60_000);

  it('format 1 on 32 partitions: the first writer moves each one-entry trail into its partition; every trail reads the same', async () => {
    env = clusterEnv(cluster, 'format-up');
    const k = env.keys;
    const client = env.manager({ role: 'client', auditLimit: 0 });
    const ids = Array.from({ length: 24 }, (_, i) => `u${i}`);
    for (const id of ids) await client.schedule({ name: id }, new IntervalTrigger(60), { id }).saved;
    await client.close();
    expect(new Set(ids.map((id) => k.partitionOf(id))).size).toBeGreaterThan(8);
    // every trail a stream, as format 1 wrote it; one with a second entry
    for (const id of ids) {
      const def = (await env.redis.hget(k.of(id).schedules, id)) as string;
      await env.redis.xadd(
        k.audit(id),
        'MAXLEN',
        '100',
        '*',
        'op',
        'create',
        'actor',
        'code',
        'source',
        'code',
        'after',
        def,
      );
    }
    await env.redis.xadd(k.audit('u0'), 'MAXLEN', '100', '*', 'op', 'pause', 'actor', 'ann', 'source', 'cli');
    await env.redis.set(k.dataFormat, '1');
    const reader = env.manager({ role: 'client' });
    const trails = () => Promise.all(ids.map((id) => reader.auditTrail(id)));
    const before = await trails();
    const writer = env.manager();
    await writer.start();
    expect(await env.redis.get(k.dataFormat)).toBe(String(DATA_FORMAT));
    expect(await trails()).toEqual(before);
    expect(await env.redis.xlen(k.audit('u0'))).toBe(2);
    for (const id of ids.slice(1)) {
      expect(await env.redis.exists(k.audit(id)), id).toBe(0);
      expect(await env.redis.hget(k.auditFirst(id), id), id).toMatch(/\|ccode$/);
    }
  }, 60_000);

  it("format 2 on 32 partitions: the first writer deletes each partition's name index; every list reads the same", async () => {
    env = clusterEnv(cluster, 'format-3');
    const k = env.keys;
    const client = env.manager({ role: 'client', auditLimit: 0 });
    const n = 400;
    await client.scheduleMany(
      Array.from({ length: n }, (_, i) => ({
        target: { name: `n${(i * 7919) % 97}`, queue: `${env.prefix}-q${i % 6}` },
        trigger: new IntervalTrigger(3600),
        options: { id: `s${i}` },
      })),
    );
    for (let i = 0; i < n; i += 7) await client.pause(`s${i}`);
    const lists = async () => ({
      byName: (await client.listPage({ limit: n })).items.map((j) => j.id),
      paused: (await client.listPage({ status: 'paused', limit: 30 })).items.map((j) => j.id),
      active: (await client.listPage({ status: 'active', offset: 30, limit: 30 })).items.map((j) => j.id),
      queue: (await client.listPage({ queue: `${env.prefix}-q2`, limit: 30 })).items.map((j) => j.id),
      stats: await client.stats(),
    });
    const before = await lists();
    expect(before.byName).toHaveLength(n);
    // as format 2 left it: each partition's `names` beside its queue indexes; one partition unmarked
    for (const p of k.all()) {
      for (const queue of await env.redis.smembers(p.queues)) {
        const members = await env.redis.zrange(p.queueNames(queue), '0', '-1');
        if (members.length > 0) await env.redis.zadd(p.names, ...members.flatMap((m) => ['0', m]));
      }
    }
    await env.redis.del(k.partition(5).listsIndexed);
    await env.redis.set(k.dataFormat, '2');
    const withNames = async () => {
      let count = 0;
      for (const p of k.all()) count += await env.redis.exists(p.names);
      return count;
    };
    expect(await withNames()).toBeGreaterThan(20);
    const writer = env.manager();
    await writer.start();
    expect(await env.redis.get(k.dataFormat)).toBe(String(DATA_FORMAT));
    expect(await withNames()).toBe(0);
    expect(await env.redis.get(k.partition(5).listsIndexed)).toBe('1');
    expect(await lists()).toEqual(before);
    await writer.stop();
  }, 120_000);
});
