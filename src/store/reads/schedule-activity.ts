import type { Redis } from 'ioredis';
import type { RunRecord } from '../forms/index.js';
import { type PauseNote, parsePauseNote } from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import { readRecords } from './record-reads.js';
import { countsFrom, type RunCounter } from './run-history.js';

/** What a schedule's row on the dashboard shows beside its definition: counters, newest records, pause note. */
export interface ScheduleActivity {
  counts: Record<RunCounter, number>;
  /** The newest records, newest first. */
  records: RunRecord[];
  /** The stored pause note, whatever the status (the caller shows it beside a paused state only). */
  pauseNote: PauseNote | null;
}

/**
 * The activity of each schedule of `ids`, in their order: the counters, the index of the newest
 * `recent` records and the pause notes in one round trip (one reply per schedule: on a cluster each
 * schedule's notes hash is its partition's), then the records in a second.
 */
export async function readActivity(
  redis: Redis,
  keys: Keys,
  ids: readonly string[],
  recent: number,
): Promise<ScheduleActivity[]> {
  if (ids.length === 0) return [];
  const pipe = redis.pipeline();
  for (const id of ids) {
    pipe.hgetall(keys.counts(id));
    pipe.zrevrange(keys.runIndex(id), 0, recent - 1);
  }
  for (const id of ids) pipe.hget(keys.of(id).pauseNotes, id);
  const res = (await pipe.exec()) ?? [];
  const fieldLists = ids.map((_, i) => (res[2 * i + 1]?.[1] ?? []) as string[]);
  const recordLists = await readRecords(
    redis,
    keys,
    ids.map((scheduleId, i) => ({ scheduleId, fields: fieldLists[i] ?? [] })),
  );
  return ids.map((_, i) => ({
    counts: countsFrom((res[2 * i]?.[1] ?? {}) as Record<string, string>),
    records: (recordLists[i] ?? []).flatMap((r) => r ?? []),
    pauseNote: parsePauseNote((res[2 * ids.length + i]?.[1] ?? null) as string | null),
  }));
}
