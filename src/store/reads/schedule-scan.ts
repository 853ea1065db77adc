import type { Redis } from 'ioredis';
import { ScheduleOptionsError } from '../../errors/index.js';
import type { Keys } from '../keys/index.js';

/** A step of the paged walk over every schedule (`listPage({ cursor })`). */
export interface ScanStep {
  /** The ids of this step, in store order (a schedule present throughout the walk comes at least once). */
  ids: string[];
  /** Where the next step starts; undefined when the walk is over. */
  cursor: string | undefined;
}

/** Where a walk starts. */
export const SCAN_START = '0';

const CURSOR = /^(\d+):(\d+)$/;

/** `<partition>:<HSCAN cursor>`, or `0` (the start); anything else is refused naming `cursor`. */
function parseCursor(text: string, partitions: number): { partition: number; at: string } {
  if (text === SCAN_START) return { partition: 0, at: '0' };
  const m = CURSOR.exec(text);
  const partition = m ? Number(m[1]) : Number.NaN;
  if (!m || partition >= partitions) {
    throw new ScheduleOptionsError(
      undefined,
      'cursor',
      `"${text}" is not a list cursor: start with "0", then pass the cursor the previous page answered`,
    );
  }
  return { partition, at: m[2]! };
}

/**
 * About `count` schedule ids from `cursor` on, walking each partition's `schedules` hash with `HSCAN`
 * (`COUNT count`), one partition after the other: each step reads what it answers, never a whole
 * index, so the first page of a million schedules on a cluster costs a few small commands. Like
 * `HSCAN`, a step may answer a few more or fewer than `count`, and a schedule created or removed during
 * the walk may or may not come.
 */
export async function scanSchedules(
  redis: Redis,
  keys: Keys,
  cursor: string,
  count: number,
): Promise<ScanStep> {
  let { partition, at } = parseCursor(cursor, keys.partitions);
  const ids: string[] = [];
  while (ids.length < count) {
    const [next, flat] = await redis.hscan(keys.partition(partition).schedules, at, 'COUNT', count);
    for (let i = 0; i < flat.length; i += 2) ids.push(flat[i]!);
    at = next;
    if (at !== '0') continue;
    partition++;
    if (partition >= keys.partitions) return { ids, cursor: undefined };
  }
  return { ids, cursor: `${partition}:${at}` };
}

/** How many schedules the deployment holds (`HLEN` of each partition's `schedules`). */
export async function scheduleCount(redis: Redis, keys: Keys): Promise<number> {
  const counts = await Promise.all(keys.all().map((k) => redis.hlen(k.schedules)));
  return counts.reduce((a, b) => a + b, 0);
}
