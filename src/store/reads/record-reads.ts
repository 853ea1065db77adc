import type { Redis } from 'ioredis';
import type { RunRecord } from '../forms/index.js';
import { mergeForms, recordFromHash, recordFromJson } from '../forms/index.js';
import type { Keys } from '../keys/index.js';

/** The records of some occurrences of one schedule, by occurrence field. */
export interface RecordRead {
  scheduleId: string;
  fields: readonly string[];
}

/**
 * Read records in both forms, in one round trip: each occurrence's hash (`rec:<id>:<field>`, this
 * release's) and, per schedule, the JSON an earlier release left in `runs:<id>` (one HMGET), merged
 * (`mergeForms`). Per read, its records in the order of its fields, null where there is none.
 * `names`: only those facts of each hash (one `HMGET` instead of `HGETALL`), for a reader that looks at
 * a few facts of many records (the outcome follower's reconciliation); `scheduleId`, `fireAt` and
 * `kind` are there all the same, and an earlier release's JSON record is read whole and merged.
 */
export async function readRecords(
  redis: Redis,
  keys: Keys,
  reads: readonly RecordRead[],
  names?: readonly string[],
): Promise<(RunRecord | null)[][]> {
  const pipe = redis.pipeline();
  for (const { scheduleId, fields } of reads) {
    if (fields.length === 0) continue;
    pipe.hmget(keys.runs(scheduleId), ...fields);
    for (const f of fields) {
      if (names) pipe.hmget(keys.record(scheduleId, f), ...names);
      else pipe.hgetall(keys.record(scheduleId, f));
    }
  }
  const res = (await pipe.exec()) ?? [];
  let at = 0;
  return reads.map(({ scheduleId, fields }) => {
    if (fields.length === 0) return [];
    const [oldErr, oldValues] = res[at++] ?? [];
    if (oldErr) throw oldErr;
    const olds = (oldValues ?? []) as (string | null)[];
    return fields.map((field, i) => {
      const [err, raw] = res[at++] ?? [];
      if (err) throw err;
      const hash = names
        ? namedHash(names, raw as (string | null)[] | null)
        : (raw as Record<string, string> | null);
      return mergeForms(recordFromJson(olds[i]), recordFromHash(hash, scheduleId, field));
    });
  });
}

/** An `HMGET` of `names` as the hash of the facts it found. */
function namedHash(
  names: readonly string[],
  values: readonly (string | null)[] | null,
): Record<string, string> {
  const hash: Record<string, string> = {};
  (values ?? []).forEach((v, n) => {
    if (v !== null) hash[names[n]!] = v;
  });
  return hash;
}

/** The newest `limit` records of each schedule, newest first (two round trips for all of them). */
export async function readHistories(
  redis: Redis,
  keys: Keys,
  scheduleIds: readonly string[],
  limit: number,
): Promise<RunRecord[][]> {
  if (scheduleIds.length === 0) return [];
  const idx = redis.pipeline();
  for (const id of scheduleIds) idx.zrevrange(keys.runIndex(id), 0, limit - 1);
  const lists = ((await idx.exec()) ?? []).map(([err, fields]) => {
    if (err) throw err;
    return (fields ?? []) as string[];
  });
  const records = await readRecords(
    redis,
    keys,
    scheduleIds.map((scheduleId, i) => ({ scheduleId, fields: lists[i] ?? [] })),
  );
  return records.map((list) => withSpans(list.flatMap((r) => r ?? [])).slice(0, limit));
}

/**
 * Records newest first, with the occurrences of each coalesced span shown one by one: a run that
 * stands for occurrences coalesced while the scheduler was behind keeps them as one list
 * (`coalescedBefore`), and each becomes the `skipped`/`coalesced` record it would have had, placed by
 * its fire time. An occurrence that has a record of its own keeps it.
 */
export function withSpans(records: readonly RunRecord[]): RunRecord[] {
  if (!records.some((r) => r.coalescedBefore?.length || r.coalescedAfter?.length)) return [...records];
  const own = new Set(
    records.map((r) => `${r.kind === 'manual' || r.kind === 'backfill' ? r.kind : ''}${r.fireAt}`),
  );
  const out = [...records];
  for (const r of records) {
    const spans = [
      ...(r.coalescedBefore ?? []).map((ms) => [r.fireAt - ms, 'scheduler-behind'] as const),
      ...(r.coalescedAfter ?? []).map((ms) => [r.fireAt + ms, 'consumer-behind'] as const),
    ];
    for (const [fireAt, coalescedBy] of spans) {
      if (own.has(String(fireAt))) continue;
      own.add(String(fireAt));
      out.push({
        scheduleId: r.scheduleId,
        fireAt,
        kind: 'scheduled',
        outcome: 'skipped',
        reason: 'coalesced',
        coalescedBy,
        standIn: r.fireAt,
        // claimed with the stand-in (a behind claim's span), not with the job that waited for them
        ...(coalescedBy === 'scheduler-behind' && r.replica !== undefined && { replica: r.replica }),
        ...(coalescedBy === 'scheduler-behind' && r.claimedAt !== undefined && { claimedAt: r.claimedAt }),
      });
    }
  }
  return out.sort((a, b) => b.fireAt - a.fireAt);
}

/** Every record key of a schedule's history (its index's fields), for a delete. */
export async function recordKeysOf(redis: Redis, keys: Keys, scheduleId: string): Promise<string[]> {
  const fields = await redis.zrange(keys.runIndex(scheduleId), '0', '-1');
  return fields.map((f) => keys.record(scheduleId, f));
}
