import type { Redis } from 'ioredis';
import { LedgerScripts } from '../scripts/index.js';

// What bullbeat reads and removes of BullMQ's own keys, beside BullMQ's API: on the queue's own client
// (BullMQ's keys are in the queue's slot), with key names BullMQ gives (`queue.keys`, `queue.toKey`).

/** BullMQ's keys of one queue that `unstageJobs` touches. */
export interface StagedJobKeys {
  /** `queue.keys.delayed` */
  delayed: string;
  /** `queue.keys.events` */
  events: string;
  /** `queue.toKey('')`: a job's hash is this and its id. */
  jobBase: string;
}

/**
 * Remove the staged (delayed, not yet promoted) jobs whose ids are `idPrefix` and a fire time, due
 * within `windowMs` of Redis's clock; only the one at `fireAt` when given (`unstage-2.lua`).
 * Returns the fire times removed.
 */
export async function unstageJobs(
  client: Redis,
  keys: StagedJobKeys,
  idPrefix: string,
  windowMs: number,
  fireAt?: number,
  /** Staged jobs are scored this far (ms) past the fire time their id names (a spread's offset). */
  offsetMs = 0,
): Promise<number[]> {
  return new LedgerScripts(client).unstage({ ...keys, jobIdPrefix: idPrefix, windowMs, fireAt, offsetMs });
}

/**
 * For each job hash key (all of one queue), BullMQ's `timestamp` (ms) of a job no worker took yet (no
 * `processedOn`), or null: the hash is gone, was never written, or the job started. One script call
 * (`unstarted-since-n`) for them all.
 */
export function unstartedSince(client: Redis, jobKeys: readonly string[]): Promise<(number | null)[]> {
  return new LedgerScripts(client).unstartedSince(jobKeys);
}

/**
 * Whether any of the queues has jobs waiting for a worker (`LLEN` of each `wait` list, given as
 * `queue.keys.wait`, pipelined): a burst still being started. A list that cannot be read counts as
 * empty (the caller only holds writes back on it).
 */
export async function jobsWaiting(client: Redis, waitKeys: readonly string[]): Promise<boolean> {
  const pipe = client.pipeline();
  for (const key of waitKeys) pipe.llen(key);
  const res = (await pipe.exec()) ?? [];
  return res.some(([err, n]) => !err && Number(n) > 0);
}

/**
 * Wake the workers of a queue that wait for its next delayed job: the marker BullMQ's own adds write
 * for a job ready now (`ZADD <marker> 0 "0"`, `queue.keys.marker`). The woken Worker's move to active
 * promotes what is due; with nothing due it looks once and waits again.
 */
export async function wakeWorkers(client: Redis, markerKey: string): Promise<void> {
  await client.zadd(markerKey, 0, '0');
}
