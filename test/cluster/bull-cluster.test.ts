// BullCluster: the Cluster handed to BullMQ's objects ends a manual disconnect with `end` even when the
// client comes back to life first, as BullMQ 6.7's worker needs after a failover (its reset of the
// blocking connection waits for that `end`; without it the worker's fetch loop waits forever).
import { once } from 'node:events';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullCluster } from '../../src/store/connection/bull-cluster.js';
import { type LocalCluster, startCluster } from '../setup/redis-cluster.js';
import { waitUntil } from '../wait-until.js';
import { masterOfSlot } from './helpers.js';

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

const nodes = () => cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));

/** Whether `end` comes within `ms` of a disconnect() that a connect() follows at once, and the client after. */
async function disconnectThenRevive(client: Cluster, ms: number) {
  await client.ping();
  const ended = once(client, 'end').then(() => true);
  client.disconnect();
  // BullMQ's recovery of an emptied node pool: disconnect(false), then connect()
  client.disconnect(false);
  const connected = client.connect().catch(() => undefined);
  const got = await Promise.race([ended, new Promise<false>((r) => setTimeout(() => r(false), ms))]);
  await connected;
  return { ended: got, pong: await client.ping().catch((err: Error) => err.message) };
}

/**
 * connect() while every node says `cluster_state:fail` (slot 0 unassigned on each), so that the
 * attempt's ready check fails and ioredis reconnects on its own; then the slot served again. Whether
 * the client got ready, and what its connect() promise did within 3 s of that.
 */
async function connectThroughClusterDown(client: Cluster) {
  const owner = await masterOfSlot(cluster, 0);
  const live = cluster.nodes.map((n) => n.port);
  const stateOf = async (port: number) =>
    /cluster_state:(\w+)/.exec(await cluster.cli(port, 'cluster', 'info'))?.[1];
  for (const port of live) await cluster.cli(port, 'cluster', 'delslots', '0').catch(() => undefined);
  try {
    await waitUntil(async () => (await Promise.all(live.map(stateOf))).every((s) => s === 'fail'), 20_000, {
      what: 'every node saying cluster_state:fail',
    });
    let settled: 'pending' | 'resolved' | 'rejected' = 'pending';
    client.on('error', () => undefined);
    void client.connect().then(
      () => (settled = 'resolved'),
      () => (settled = 'rejected'),
    );
    // its ready check fails: the client reconnects by itself, again and again, until the slot is back
    await new Promise((r) => setTimeout(r, 1500));
    expect(client.status).not.toBe('ready');
    await cluster.cli(owner, 'cluster', 'addslots', '0');
    await cluster.waitOk();
    const readyFirst = await waitUntil(() => client.status === 'ready', 20_000).then(() => true);
    await new Promise((r) => setTimeout(r, 3000));
    return { readyFirst, settled, pong: await client.ping().catch((err: Error) => err.message) };
  } finally {
    client.disconnect();
    await cluster.cli(owner, 'cluster', 'addslots', '0').catch(() => undefined);
    await cluster.waitOk();
  }
}

describe('BullCluster', () => {
  it('a disconnect whose client is revived before its end still ends; the client answers after', async () => {
    const client = new BullCluster(nodes());
    const r = await disconnectThenRevive(client, 3000);
    client.disconnect();
    expect(r).toEqual({ ended: true, pong: 'PONG' });
  });

  it("ioredis's own Cluster in the same sequence never ends: why BullCluster exists", async () => {
    const client = new Cluster(nodes());
    const r = await disconnectThenRevive(client, 3000);
    client.disconnect();
    expect(r).toEqual({ ended: false, pong: 'PONG' });
  });

  it('duplicate() (what BullMQ makes its blocking connection with) keeps the class and the options', async () => {
    const client = new BullCluster(nodes(), {
      retryDelayOnFailover: 123,
      redisOptions: { connectionName: 'a' },
    });
    const copy = client.duplicate(undefined, { redisOptions: { db: 0 } });
    expect(copy).toBeInstanceOf(BullCluster);
    expect(copy.options.retryDelayOnFailover).toBe(123);
    expect(copy.options.redisOptions).toMatchObject({ connectionName: 'a', db: 0 });
    expect(await copy.ping()).toBe('PONG');
    copy.disconnect();
    client.disconnect();
  });

  it('connect() settles once the client is ready, though its first ready check found the cluster down', async () => {
    const r = await connectThroughClusterDown(new BullCluster(nodes(), { lazyConnect: true }));
    expect(r).toEqual({ readyFirst: true, settled: 'resolved', pong: 'PONG' });
  }, 60_000);

  it("ioredis's own Cluster in the same sequence leaves connect() pending for good: why BullCluster overrides it", async () => {
    const r = await connectThroughClusterDown(new Cluster(nodes(), { lazyConnect: true }));
    expect(r).toEqual({ readyFirst: true, settled: 'pending', pong: 'PONG' });
  }, 60_000);

  it("a plain disconnect ends once, as with ioredis's Cluster", async () => {
    const client = new BullCluster(nodes());
    await client.ping();
    let ends = 0;
    client.on('end', () => ends++);
    client.disconnect();
    await once(client, 'end');
    await new Promise((r) => setTimeout(r, 300));
    expect(ends).toBe(1);
  });
});
