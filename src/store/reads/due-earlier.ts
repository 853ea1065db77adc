import type { Redis } from 'ioredis';
import type { Keys } from '../keys/index.js';

/**
 * Move a schedule's next due time earlier, to `at`, if it is waiting in `due` (never later; never one
 * that is claimed: a claimed id is not in `due`). `immediately`'s first run: right after the upsert
 * that created the schedule. True if it moved.
 */
export async function dueEarlier(redis: Redis, keys: Keys, id: string, at: number): Promise<boolean> {
  // ZADD XX: only an id already in `due`; LT: only to an earlier time (Redis 6.2+). CH: count updates.
  const changed = await redis.zadd(keys.of(id).due, 'XX', 'LT', 'CH', at, id);
  return Number(changed) === 1;
}
