import type { Redis } from 'ioredis';
import type { Keys } from '../keys/index.js';
import { indexedQueues } from './list-index.js';

/** Every queue a stored definition names, over every partition (from the partitions' sets of queues). */
export async function storedQueueNames(redis: Redis, keys: Keys): Promise<Set<string>> {
  return new Set(await indexedQueues(redis, keys));
}
