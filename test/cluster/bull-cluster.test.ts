// BullCluster: the Cluster handed to BullMQ's objects ends a manual disconnect with `end` even when the
// client comes back to life first, as BullMQ 6.7's worker needs after a failover (its reset of the
// blocking connection waits for that `end`; without it the worker's fetch loop waits forever).
import { once } from 'node:events';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullCluster } from '../../src/store/connection/bull-cluster.js';
import { type LocalCluster, startCluster } from '../setup/redis-cluster.js';

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
