import type { Redis } from 'ioredis';
import { redisTime } from '../connection/index.js';
import type { Keys } from '../keys/index.js';

// The queues bullbeat's worker runtime consumes (`runtimeQueues`: queue → the Redis time until which a
// runtime said so). A runtime writes its run records itself (`running` at the start, the outcome at
// the end), so the outcome follower (src/scheduler/outcomes), which reads records back to find a plain
// BullMQ Worker's outcomes, need not read those of such a queue. Several runtimes on one queue write
// the same field: the latest announcement holds, and the field lapses one TTL after the last
// runtime on the queue stopped announcing.

/** How often a worker runtime announces its queues (ms). */
export const RUNTIME_ANNOUNCE_MS = 10_000;
/** An announcement holds this long (ms): three announcements missed and the queue counts as not consumed. */
export const RUNTIME_ANNOUNCE_TTL_MS = 3 * RUNTIME_ANNOUNCE_MS;

/** Say that a worker runtime consumes `queues` for the next `ttlMs` (by Redis time). */
export async function announceRuntimeQueues(
  redis: Redis,
  keys: Keys,
  queues: readonly string[],
  ttlMs = RUNTIME_ANNOUNCE_TTL_MS,
): Promise<void> {
  if (queues.length === 0) return;
  const until = (await redisTime(redis)) + ttlMs;
  await redis.hset(keys.runtimeQueues, Object.fromEntries(queues.map((q) => [q, until])));
}

/** The queues a worker runtime consumes at Redis time `now` (an announcement that has not lapsed). */
export async function liveRuntimeQueues(redis: Redis, keys: Keys, now: number): Promise<Set<string>> {
  const rows = await redis.hgetall(keys.runtimeQueues);
  return new Set(
    Object.entries(rows)
      .filter(([, until]) => Number(until) > now)
      .map(([queue]) => queue),
  );
}
