import type { Redis } from 'ioredis';
import type { HandOver } from '../scripts/index.js';
import { LedgerScripts } from '../scripts/index.js';

// A BullMQ queue's `repeat` set (job schedulers and legacy repeatable jobs → next fire time), as
// `import:bullmq` reads it entry by entry and hands its entries over to bullbeat.

/** One entry of the `repeat` set: its key (a scheduler id or a legacy key) and its next time (ms). */
export interface RepeatEntry {
  key: string;
  next: number;
}

/** Every entry of the set, in its order. */
export async function repeatEntries(redis: Redis, repeatKey: string): Promise<RepeatEntry[]> {
  const flat = await redis.zrange(repeatKey, '0', '-1', 'WITHSCORES');
  const out: RepeatEntry[] = [];
  for (let i = 0; i < flat.length; i += 2) out.push({ key: flat[i] as string, next: Number(flat[i + 1]) });
  return out;
}

/** The instant of an entry's pending job (its score), or null when the entry is gone. */
export async function pendingInstant(redis: Redis, repeatKey: string, key: string): Promise<number | null> {
  const score = await redis.zscore(repeatKey, key);
  return score === null ? null : Number(score);
}

/** Remove an entry; false when it was gone. */
export async function removeRepeatEntry(redis: Redis, repeatKey: string, key: string): Promise<boolean> {
  return (await redis.zrem(repeatKey, key)) === 1;
}

export type { HandOver };

/**
 * Remove a job scheduler's entry and hash while its pending job is still the one at `handoverAt`
 * (`handover-scheduler-2.lua`): `removed`; `gone` when there is no such scheduler; `moved-on` (nothing
 * written) when its pending job is another.
 */
export async function handOverScheduler(
  redis: Redis,
  repeatKey: string,
  schedulerId: string,
  handoverAt: number | undefined,
): Promise<HandOver> {
  return new LedgerScripts(redis).handoverScheduler({ repeatKey, schedulerId, handoverAt });
}
