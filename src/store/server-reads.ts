import type { Redis } from 'ioredis';

// What the CLI and the dashboard ask of a Redis server itself rather than of a deployment's keys.

/** `PING`: the server's reply (`PONG`). */
export function ping(redis: Redis): Promise<string> {
  return redis.ping();
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
