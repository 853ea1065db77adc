import type { Redis } from 'ioredis';
import { peekNameAndQueue } from '../forms/index.js';
import type { Keys } from '../keys/index.js';

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

/** Per schedule, the occurrence fields of its newest `depth` records, newest first (one pipeline). */
export async function newestRecordFields(
  redis: Redis,
  keys: Keys,
  ids: readonly string[],
  depth: number,
): Promise<string[][]> {
  const pipe = redis.pipeline();
  for (const id of ids) pipe.zrevrange(keys.runIndex(id), 0, depth - 1);
  return ((await pipe.exec()) ?? []).map((r) => (r[1] ?? []) as string[]);
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
