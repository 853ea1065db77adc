import type { Redis } from 'ioredis';
import type { Keys } from './keys.js';

// What the CLI and the dashboard ask of a Redis server itself rather than of a deployment's data.

/** `PING`: the server's reply (`PONG`). */
export function ping(redis: Redis): Promise<string> {
  return redis.ping();
}

/**
 * Whether a deployment has left anything in this Redis that names it: its schedules (one partition) or
 * its recorded partition count (several). One `EXISTS` of two keys under the deployment's hash tag.
 */
export async function deploymentExists(redis: Redis, k: Keys): Promise<boolean> {
  return (await redis.exists(k.schedules, k.partitionCount)) > 0;
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
