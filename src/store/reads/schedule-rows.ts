import type { Redis } from 'ioredis';
import {
  decodeClaimRow,
  decodeRow,
  parseState,
  type ScheduleState,
  type StoredSchedule,
} from '../forms/index.js';
import type { Keys } from '../keys/index.js';

// Schedules read back from their rows (definition, state, due time, claim, error), decoded by
// `decodeRow`: a bad row is shown errored, never thrown.

/** One schedule (a bad row decoded as errored), or null; with the fire time of its occurrence claimed now. */
export async function readSchedule(
  redis: Redis,
  keys: Keys,
  id: string,
): Promise<(StoredSchedule & { claimedFireAt: number | null }) | null> {
  const k = keys.of(id);
  const res = (await redis
    .multi()
    .hget(k.schedules, id)
    .hget(k.state, id)
    .zscore(k.due, id)
    .hget(k.claim, id)
    .hget(k.errors, id)
    .exec()) as [unknown, string | null][];
  const [defJSON, st, due, claim, error] = res.map((r) => r[1]);
  const state = parseState(st);
  if (!defJSON || !state) return null;
  const claimedFireAt = claim ? decodeClaimRow(String(claim)).fireAt : null;
  const next = due !== null ? Number(due) : claimedFireAt;
  return { ...decodeRow(id, String(defJSON), state, next, error), claimedFireAt };
}

/** Many schedules by id, in order (missing ones omitted; bad rows decoded as errored). */
export async function readSchedules(
  redis: Redis,
  keys: Keys,
  ids: readonly string[],
): Promise<StoredSchedule[]> {
  if (ids.length === 0) return [];
  const found = new Map<string, StoredSchedule>();
  // one pipeline per partition (a cluster pipeline stays within one slot)
  await Promise.all(
    [...byPartition(keys, ids, (id) => id)].map(([i, part]) =>
      readRows(redis, keys.partition(i), part, found),
    ),
  );
  return ids.flatMap((id) => found.get(id) ?? []);
}

async function readRows(
  redis: Redis,
  k: Keys,
  ids: readonly string[],
  out: Map<string, StoredSchedule>,
): Promise<void> {
  const pipe = redis.pipeline();
  pipe.hmget(k.schedules, ...ids);
  pipe.hmget(k.state, ...ids);
  pipe.hmget(k.claim, ...ids);
  pipe.hmget(k.errors, ...ids);
  for (const id of ids) pipe.zscore(k.due, id);
  const res = (await pipe.exec()) ?? [];
  const defs = (res[0]?.[1] ?? []) as (string | null)[];
  const states = (res[1]?.[1] ?? []) as (string | null)[];
  const claims = (res[2]?.[1] ?? []) as (string | null)[];
  const errors = (res[3]?.[1] ?? []) as (string | null)[];
  ids.forEach((id, i) => {
    const state = parseState(states[i]);
    const defJSON = defs[i];
    if (!defJSON || !state) return;
    const due = res[4 + i]?.[1] as string | null;
    const claim = claims[i];
    const next =
      due !== null && due !== undefined ? Number(due) : claim ? decodeClaimRow(claim).fireAt : null;
    out.set(id, decodeRow(id, defJSON, state, next, errors[i]));
  });
}

/** Items grouped by the partition of their schedule id. */
export function byPartition<T>(keys: Keys, items: readonly T[], idOf: (item: T) => string): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const i = keys.partitionOf(idOf(item));
    let g = groups.get(i);
    if (!g) groups.set(i, (g = []));
    g.push(item);
  }
  return groups;
}

/** How many ids one `HMGET` of `readStates` asks for. */
const STATES_CHUNK = 5000;

/** The state rows of these schedules (id → state; a missing or unreadable one omitted), partition by partition. */
export async function readStates(
  redis: Redis,
  keys: Keys,
  ids: readonly string[],
): Promise<Map<string, ScheduleState>> {
  const out = new Map<string, ScheduleState>();
  await Promise.all(
    [...byPartition(keys, ids, (id) => id)].map(async ([i, part]) => {
      const k = keys.partition(i);
      for (let at = 0; at < part.length; at += STATES_CHUNK) {
        const chunk = part.slice(at, at + STATES_CHUNK);
        const rows = await redis.hmget(k.state, ...chunk);
        chunk.forEach((id, j) => {
          const s = parseState(rows[j]);
          if (s) out.set(id, s);
        });
      }
    }),
  );
  return out;
}
