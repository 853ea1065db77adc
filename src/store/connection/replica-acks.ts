import type { Cluster, Redis } from 'ioredis';
import { keySlot } from '../keys/index.js';
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

/** `WAIT` on `node` (a master's own connection, `connectionOfKey`): replicas that acknowledged its writes within `timeoutMs`. */
export async function waitForReplicas(node: Redis, replicas: number, timeoutMs: number): Promise<number> {
  return Number(await node.wait(replicas, timeoutMs));
}
