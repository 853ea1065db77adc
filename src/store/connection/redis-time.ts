import type { Redis } from 'ioredis';

/** Redis `TIME` in epoch ms: the one clock replicas, workers and readers agree on. */
export async function redisTime(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}
