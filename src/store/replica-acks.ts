import type { Cluster, Redis } from 'ioredis';
import { keySlot } from './partitions.js';
import { isCluster } from './redis-target.js';

/**
 * `replicaAcks`: after each enqueue, wait until this many replicas of the master that took the job
 * adds acknowledged them (Redis `WAIT`), before the occurrence's completion is written.
 */
export interface ReplicaAcksOptions {
  /** Replicas that must acknowledge (`WAIT numreplicas`); at least 1. */
  replicas: number;
  /** The longest one enqueue waits for them (ms, `WAIT`'s timeout; at least 1: 0 would wait forever). */
  timeoutMs: number;
}

/**
 * The connection that carries the commands on `key`'s slot: the client itself on a single Redis; on a
 * Redis Cluster, the `Cluster`'s own connection to the master that serves that slot (as its slot map
 * says now), the one a command on `key` sent through the `Cluster` goes on.
 */
export function connectionOfKey(client: Redis | Cluster, key: string): Redis {
  if (!isCluster(client)) return client as Redis;
  // ioredis keeps the slot map (`slots[slot]`: node keys, master first) and one connection per node;
  // a keyless command such as WAIT would go to a random node, so it is sent on the slot's own.
  const internals = client as unknown as {
    slots: (string[] | undefined)[];
    connectionPool: { getInstanceByKey(key: string): Redis | undefined };
  };
  const nodeKey = internals.slots[keySlot(key)]?.[0];
  const node = nodeKey === undefined ? undefined : internals.connectionPool.getInstanceByKey(nodeKey);
  if (!node) throw new Error(`replicaAcks: no connection to the master of slot ${keySlot(key)} (${key})`);
  return node;
}

/**
 * `WAIT replicas timeoutMs` on the connection that took the writes on `key`'s slot: how many replicas
 * acknowledged every write made on that connection so far. Redis counts per connection, so this must
 * be the very connection the writes went on (see `connectionOfKey`). Throws when that master is
 * unreachable (the writes may be lost: the caller treats it as a failed write).
 */
export async function waitForReplicas(
  client: Redis | Cluster,
  key: string,
  options: ReplicaAcksOptions,
): Promise<number> {
  const node = connectionOfKey(client, key);
  return Number(await node.wait(options.replicas, options.timeoutMs));
}
