// The data format on a Redis Cluster: the first scheduler replica records it in the slot of the
// deployment-wide keys ({prefix}); with a newer format stored there, a replica and a worker refuse
// to start naming both; a worker's graceful close releases its queue (release-queue-1, the queue's slot).
// A deployment of format 1 over 32 partitions is upgraded by its first writer: each idle schedule's
// one-entry trail moved into its partition's first-entry hash (compact-audit-3, the partition's slot).
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
    expect(await env.redis.get(k.dataFormat)).toBe('2');
    expect(await trails()).toEqual(before);
    expect(await env.redis.xlen(k.audit('u0'))).toBe(2);
    for (const id of ids.slice(1)) {
      expect(await env.redis.exists(k.audit(id)), id).toBe(0);
      expect(await env.redis.hget(k.auditFirst(id), id), id).toMatch(/\|ccode$/);
    }
  }, 60_000);
});
