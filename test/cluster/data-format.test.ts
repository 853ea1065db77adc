// The data format on a Redis Cluster: the first scheduler replica records it in the slot of the
// deployment-wide keys ({prefix}); with a newer format stored there, a replica and a worker refuse
// to start naming both; a worker's graceful close releases its queue (release-queue-1, the queue's slot).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DataFormatError } from '../../src/errors/index.js';
import { createWorker } from '../../src/queue/create-worker.js';
import { queueOwnerKey } from '../../src/store/bullmq/queue-owner.js';
import { DATA_FORMAT } from '../../src/store/deployment/data-format.js';
import { keySlot } from '../../src/store/keys/partitions.js';
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
});
