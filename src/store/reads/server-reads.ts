import type { Redis } from 'ioredis';
import type { Keys } from '../keys/index.js';

// What the CLI and the dashboard ask of a Redis server itself rather than of a deployment's data.

/** `PING`: the server's reply (`PONG`). */
export function ping(redis: Redis): Promise<string> {
  return redis.ping();
}

/**
 * Whether a deployment has left anything in this Redis that names it: its schedules or its recorded
 * partition count with one partition (earlier releases recorded none), the count with several (their
 * schedules are per partition). One `EXISTS` under the deployment's hash tag.
 */
export async function deploymentExists(redis: Redis, k: Keys): Promise<boolean> {
  const names = k.partitions === 1 ? [k.schedules, k.partitionCount] : [k.partitionCount];
  return (await redis.exists(...names)) > 0;
}

/** Every key of one node matching `pattern` (`SCAN ... MATCH`, 1,000 a step): for commands a person runs. */
export async function scanKeys(node: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    out.push(...keys);
  } while (cursor !== '0');
  return out;
}
