import type { Redis } from 'ioredis';
import { triggerFromJSON } from '../../triggers/trigger-from-json.js';
import type { ScheduleStatus, StoredSchedule } from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import { countsFrom } from './run-history.js';

/**
 * A filter and page of the schedules, sorted by name then id (`list()`, the dashboard, the API). A page
 * by `status`, `queue` or `search` is read from the list indexes (per partition, by name: every
 * schedule's, each queue's, each status's but active's), never every schedule: a status or a queue alone
 * (or none) reads up to the page's end per partition and counts `total` from the indexes; a search (or a
 * queue with a status) tests index entries in steps until the page is full, and counts on to at most
 * 20,000 entries per partition (past that, `total` is a lower bound: `totalAtLeast`).
 */
export interface ListQuery {
  /** Only schedules in this status (`cancelled`: none, a removed schedule is gone). */
  status?: ScheduleStatus;
  /** Case-insensitive substring of the id, name or queue. */
  search?: string;
  /** Only schedules targeting this queue. */
  queue?: string;
  /** Only schedules whose labels match this selector (`tenant=acme,team!=ops`; see `parseSelector`). */
  selector?: string;
  /** Default: 0. */
  offset?: number;
  /** Default: all. */
  limit?: number;
  /**
   * The order of a `cursor` walk: `'store'` (default) or `'name'` (by name, then id, from the queue
   * indexes merged: each page reads about `limit` index entries per partition and a few per queue, never
   * the whole list; `status`, `search` and `queue` filter each page, which may then hold fewer). Without
   * a cursor the list is by name already.
   */
  order?: 'store' | 'name';
  /**
   * Page every schedule in store order instead of by name: `'0'` for the first page, then the `cursor`
   * the previous page answered, until a page answers none. Each page reads about `limit` schedules (a
   * few more or fewer; default 100), never the whole list, so it stays fast at a million schedules and
   * on a Redis Cluster; `status`, `search` and `queue` filter each page's schedules (a page may then hold
   * fewer), and `total` counts every schedule. Not with `selector` or `offset`.
   */
  cursor?: string;
}

/** Run counters and live runs (leases unexpired at `now`, Redis ms) of schedules, in one pipeline. */
export async function countersOf(
  redis: Redis,
  keys: Keys,
  ids: readonly string[],
  now: number,
): Promise<{ runs: number; errors: number; skipped: number; missed: number; activeInstances: number }[]> {
  const pipe = redis.pipeline();
  for (const id of ids) {
    pipe.hgetall(keys.counts(id));
    pipe.zcount(keys.lease(id), `(${now}`, '+inf'); // live: expiring after now (as activeRuns)
  }
  const res = (await pipe.exec()) ?? [];
  return ids.map((_, i) => {
    return {
      ...countsFrom((res[2 * i]?.[1] ?? {}) as Record<string, string>),
      activeInstances: Number(res[2 * i + 1]?.[1] ?? 0),
    };
  });
}

/** A row whose built-in trigger no longer decodes (an older release's out-of-range value) shows errored. */
export function withTriggerChecked(row: StoredSchedule): StoredSchedule {
  if (row.error !== null || row.def.trigger.type === 'custom') return row;
  try {
    triggerFromJSON(row.def.trigger);
    return row;
  } catch (err) {
    const error = { reason: `trigger: ${(err as Error).message}`, at: null, fireAt: null };
    return { ...row, state: { ...row.state, status: 'e' }, next: null, error };
  }
}
