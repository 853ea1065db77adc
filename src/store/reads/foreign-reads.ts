import type { Redis } from 'ioredis';
import { peekNameAndQueue } from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import { type EnqueuedRecord, ScheduleScripts } from '../scripts/index.js';

// What following a plain BullMQ Worker's outcomes reads (`src/scheduler/outcomes`): the schedules to
// look at, their newest record fields, and BullMQ's word on the jobs (finished, and the hash's fields).

/**
 * The next page of schedules in one partition's `schedules` (HSCAN), each id with its queue, and the
 * cursor to go on from ('0': done).
 */
export async function scanScheduleQueues(
  redis: Redis,
  keys: Keys,
  partition: number,
  cursor: string,
  count: number,
): Promise<{ cursor: string; schedules: { id: string; queue: string }[] }> {
  const [next, flat] = await redis.hscan(keys.partition(partition).schedules, cursor, 'COUNT', count);
  const schedules: { id: string; queue: string }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const id = flat[i]!;
    schedules.push({ id, queue: peekNameAndQueue(id, flat[i + 1]!).queue });
  }
  return { cursor: next, schedules };
}

/** The ids of every stored schedule whose jobs go to `queue`, over all partitions. */
export async function scheduleIdsOnQueue(redis: Redis, keys: Keys, queue: string): Promise<string[]> {
  const defs = await Promise.all(keys.all().map((k) => redis.hgetall(k.schedules)));
  return defs
    .flatMap((d) => Object.entries(d))
    .filter(([id, json]) => peekNameAndQueue(id, json).queue === queue)
    .map(([id]) => id);
}

/**
 * How many records one `enqueued-records-1` call looks at, at most: ~1,000 `HMGET`s, ~3 ms of
 * Redis (the call is atomic: a fire due meanwhile waits for it).
 */
const RECORDS_PER_CALL = 1000;

/**
 * The records still `enqueued` (with a queue and a job id) among the newest `depth` of each schedule
 * of `ids`, newest first per schedule: filtered in Redis (`enqueued-records-1`), so that a catch-up
 * over the kept history of thousands of schedules sends back only these. One call per partition and
 * per RECORDS_PER_CALL records looked at, all in flight at once.
 */
export async function enqueuedRecords(
  redis: Redis,
  keys: Keys,
  ids: readonly string[],
  depth: number,
): Promise<EnqueuedRecord[]> {
  const byPartition = new Map<number, string[]>();
  for (const id of ids) {
    const p = keys.partitionOf(id);
    const list = byPartition.get(p);
    if (list) list.push(id);
    else byPartition.set(p, [id]);
  }
  const scripts = new ScheduleScripts(redis);
  const perCall = Math.max(1, Math.floor(RECORDS_PER_CALL / Math.max(1, depth)));
  const calls: Promise<EnqueuedRecord[]>[] = [];
  for (const [p, list] of byPartition) {
    for (let i = 0; i < list.length; i += perCall)
      calls.push(scripts.enqueuedRecords(keys.partition(p), list.slice(i, i + perCall), depth));
  }
  return (await Promise.all(calls)).flat();
}

/** A BullMQ job as its queue's sets and hash tell it: in `completed`, in `failed`, and the fields asked for. */
export interface FinishedJobRead {
  completed: boolean;
  failed: boolean;
  /** The hash's values of the fields asked for, in their order (null where absent). */
  fields: (string | null)[];
}

/** One BullMQ job to read: its queue's `completed` and `failed` keys, its hash key and the fields wanted. */
export interface FinishedJobQuery {
  completedKey: string;
  failedKey: string;
  jobKey: string;
  jobId: string;
  fields: readonly string[];
}

/** Read whether each job finished and the fields wanted of its hash, in one pipeline. */
export async function readFinishedJobs(
  redis: Redis,
  queries: readonly FinishedJobQuery[],
): Promise<FinishedJobRead[]> {
  const pipe = redis.pipeline();
  for (const q of queries) {
    pipe.zscore(q.completedKey, q.jobId);
    pipe.zscore(q.failedKey, q.jobId);
    pipe.hmget(q.jobKey, ...q.fields);
  }
  const res = (await pipe.exec()) ?? [];
  const present = (r: [Error | null, unknown] | undefined) => r?.[1] !== null && r?.[1] !== undefined;
  return queries.map((_, i) => ({
    completed: present(res[3 * i]),
    failed: present(res[3 * i + 1]),
    fields: (res[3 * i + 2]?.[1] ?? []) as (string | null)[],
  }));
}

/**
 * The fields wanted of each job hash (one `HMGET` each, pipelined); an entry is an `Error` where that
 * read failed.
 */
export async function readJobFields(
  redis: Redis,
  queries: readonly { jobKey: string; fields: readonly string[] }[],
): Promise<((string | null)[] | Error)[]> {
  const pipe = redis.pipeline();
  for (const q of queries) pipe.hmget(q.jobKey, ...q.fields);
  const res = (await pipe.exec()) ?? [];
  return queries.map((_, i) => {
    const [err, raw] = res[i] ?? [];
    return err ?? ((raw ?? []) as (string | null)[]);
  });
}
