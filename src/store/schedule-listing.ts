import type { Redis } from 'ioredis';
import { triggerFromJSON } from '../triggers/trigger-from-json.js';
import type { JobStatus } from './job-status.js';
import type { Keys } from './keys.js';
import { decodeDefinition } from './schedule-definition.js';
import { statusOf } from './schedule-state.js';
import type { ScheduleStore, StoredSchedule } from './schedule-store.js';

/** `list()` with paging and search, for dashboards. */
export interface ListQuery {
  status?: JobStatus;
  /** Case-insensitive substring of the id or name. */
  search?: string;
  /** Default: 0. */
  offset?: number;
  /** Default: all. */
  limit?: number;
}

/**
 * The ids of one page of schedules sorted by id (filtered by status and search), and how many matched.
 * The status filter reads the stored status: a row that only a reader finds unusable (written by an
 * older release) is shown errored but filtered by the status it has in Redis.
 */
export async function pageOfIds(
  store: ScheduleStore,
  redis: Redis,
  keys: Keys,
  query: ListQuery,
): Promise<{ total: number; ids: string[] }> {
  const states = await store.states();
  let ids = [...states.keys()];
  if (query.status) ids = ids.filter((id) => statusOf(states.get(id)!) === query.status);
  if (query.search) {
    const needle = query.search.toLowerCase();
    const names = new Map<string, string>();
    const all = await redis.hgetall(keys.schedules);
    for (const [id, d] of Object.entries(all)) names.set(id, decodeDefinition(id, d).def.name);
    ids = ids.filter(
      (id) => id.toLowerCase().includes(needle) || names.get(id)?.toLowerCase().includes(needle),
    );
  }
  ids.sort();
  const offset = query.offset ?? 0;
  return {
    total: ids.length,
    ids: ids.slice(offset, query.limit === undefined ? undefined : offset + query.limit),
  };
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
    pipe.zcount(keys.lease(id), now, '+inf');
  }
  const res = (await pipe.exec()) ?? [];
  return ids.map((_, i) => {
    const counts = (res[2 * i]?.[1] ?? {}) as Record<string, string>;
    return {
      runs: Number(counts.runs ?? 0),
      errors: Number(counts.errors ?? 0),
      skipped: Number(counts.skipped ?? 0),
      missed: Number(counts.missed ?? 0),
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
