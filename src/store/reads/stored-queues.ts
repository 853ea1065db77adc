import type { Redis } from 'ioredis';
import { decodeDefinition } from '../forms/index.js';
import type { Keys } from '../keys/index.js';

/** Every queue a stored definition names, over every partition (reads each definition hash whole). */
export async function storedQueueNames(redis: Redis, keys: Keys): Promise<Set<string>> {
  const names = new Set<string>();
  const defs = await Promise.all(keys.all().map((k) => redis.hgetall(k.schedules)));
  for (const [id, json] of defs.flatMap((d) => Object.entries(d))) {
    const { queue } = decodeDefinition(id, json).def;
    if (queue !== '') names.add(queue);
  }
  return names;
}
