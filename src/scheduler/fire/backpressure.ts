import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { unstartedSince } from '../../store/index.js';

/** The previous occurrence's job of a schedule about to fire: where to look for it. */
export interface PreviousJob<T> {
  tag: T;
  queue: string;
  jobId: string;
  /**
   * How long (ms) it must have waited already (now minus its BullMQ `timestamp`) to count as waiting:
   * a job added a moment ago has not yet had a consumer's chance to take it (see `holdBackAtClaim`).
   */
  minWaitedMs: number;
  /**
   * Its fire time: a job committed ahead (a delayed job, see staged-jobs.ts) is stamped at its claim,
   * before it could be taken; it waits from its fire time.
   */
  dueAt?: number;
}

/**
 * Which previous jobs are still waiting in their queue: the job's hash exists (BullMQ always sets its
 * `timestamp`) and no worker took it yet (no `processedOn`). Waiting, delayed and prioritized jobs
 * count: `waiting` once they waited `minWaitedMs`, `young` before (the caller looks again when the
 * new occurrence is due); a job started, finished, failed or removed does not. One `HMGET` per job, pipelined per queue
 * on the queue's own connection (BullMQ's keys are in the queue's slot), all queues at once: whatever
 * consumes the queue (bullbeat's workers, a plain BullMQ Worker), its job hash says whether it started.
 *
 * A failed look-up (Redis unreachable) answers "none waiting": the occurrences are enqueued as
 * without backpressure (and their enqueue fails the same way, leaving the claims to lapse).
 */
export async function stillWaiting<T>(
  jobs: readonly PreviousJob<T>[],
  queueOf: (name: string) => Queue,
  now: number,
): Promise<{ waiting: Set<T>; young: Set<T> }> {
  const byQueue = new Map<string, PreviousJob<T>[]>();
  for (const j of jobs) {
    let list = byQueue.get(j.queue);
    if (!list) byQueue.set(j.queue, (list = []));
    list.push(j);
  }
  const waiting = new Set<T>();
  const young = new Set<T>();
  await Promise.all(
    [...byQueue].map(async ([name, list]) => {
      const queue = queueOf(name);
      // BullMQ's Redis backend hands out its ioredis client
      const client = (await queue.getBackend().client) as unknown as Redis;
      const since = await unstartedSince(
        client,
        list.map((j) => queue.toKey(j.jobId)),
      );
      since.forEach((timestamp, i) => {
        const job = list[i]!;
        if (timestamp === null) return;
        if (now - Math.max(timestamp, job.dueAt ?? 0) >= job.minWaitedMs) waiting.add(job.tag);
        else young.add(job.tag);
      });
    }),
  );
  return { waiting, young };
}
