import type { Redis } from 'ioredis';
import type { Keys } from '../keys/index.js';
import { ScheduleScripts } from '../scripts/index.js';

/**
 * A walk of one partition's list indexes by name, then id (includes/names), a step at a time: one index
 * (a queue's or a status's: `ZRANGE ... BYLEX ... LIMIT` from the last member taken), or every queue's
 * merged. The queue indexes are the only index of every schedule (each schedule is in exactly one), so
 * the list of all of them is a k-way merge of the partition's queues, which `list-merge-1` makes in
 * Redis, one call per step: two `ZRANGEBYLEX` per queue there, not a round trip per queue here.
 */

/** Redis's order of members: their UTF-8 bytes, compared without encoding them. */
export function compareMembers(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 units order as UTF-8 bytes but for surrogates (code points past U+FFFF), which UTF-8 puts
    // after U+E000..U+FFFF: move those past them
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** What a step takes: members in order, each with the queue of its index when the walk knows it. */
export interface WalkTake {
  members: string[];
  queues: (string | undefined)[];
  /** The walk is over: no member follows the last one taken. */
  done: boolean;
}

/** A walk of one partition's index or indexes. */
export interface ListWalk {
  /** The next `n` members in order (fewer only at the end). */
  take(n: number): Promise<WalkTake>;
  /** How many index members the walk has read. */
  readonly read: number;
}

/** The walk of one index (`key`), its members tagged with `queue` (the queue it indexes, if one). */
export function indexWalk(redis: Redis, key: string, queue: string | undefined, from = '-'): ListWalk {
  let after = from;
  let read = 0;
  let over = false;
  return {
    get read() {
      return read;
    },
    async take(n) {
      if (over) return { members: [], queues: [], done: true };
      const members = await redis.zrangebylex(key, after, '+', 'LIMIT', 0, n);
      read += members.length;
      if (members.length > 0) after = `(${members.at(-1)!}`;
      over = members.length < n;
      return { members, queues: members.map(() => queue), done: over };
    },
  };
}

/** The walk of every schedule of partition `k` by name: its queue indexes merged (`list-merge-1`). */
export function mergedWalk(redis: Redis, k: Keys, from = '-'): ListWalk {
  const scripts = new ScheduleScripts(redis);
  let after = from;
  let read = 0;
  let over = false;
  return {
    get read() {
      return read;
    },
    async take(n) {
      if (over) return { members: [], queues: [], done: true };
      const step = await scripts.listMerge(k, after, n);
      read += step.read;
      if (step.members.length > 0) after = `(${step.members.at(-1)!}`;
      over = !step.more;
      return { members: step.members, queues: step.queues, done: over };
    },
  };
}
