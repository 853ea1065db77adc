import type { JobsOptions, Queue } from 'bullmq';
import { addJobsInOneCall, canAddInOneCall } from '../../store/index.js';

/** One job of an `addBulk` call; `like`: see `JobToAdd` (not given to `addBulk`). */
export interface BulkJob {
  name: string;
  data: unknown;
  opts: JobsOptions;
  like?: object;
}

/** Error codes and messages of a connection or server problem (not of one job's options or data). */
const TRANSIENT_CODES = /^(ECONN|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)/;
const TRANSIENT_MESSAGES =
  /connection|closed|socket|timed? ?out|ECONN|LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|MOVED|ASK |OOM|BUSY|NOSCRIPT|max retries/i;

/**
 * True when an error says Redis (or the way to it) failed rather than one job: such a failure is
 * retried (the claim's lease lapses), never blamed on a schedule.
 */
export function isTransientError(err: unknown): boolean {
  if (!(err instanceof Error)) return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && TRANSIENT_CODES.test(code)) return true;
  if (err.name === 'MaxRetriesPerRequestError' || err.name === 'AbortError') return true;
  return TRANSIENT_MESSAGES.test(err.message);
}

/**
 * The queue's jobs added in one script call (`addJobsInOneCall`: BullMQ's own add scripts in a loop),
 * or by `queue.addBulk(jobs)` where that cannot be used (a queue with BullMQ telemetry), isolating the
 * jobs BullMQ refuses (its option checks, a `sizeLimit` the data exceeds): a job its checks refuse is
 * refused alone, and when the call fails for a reason other than the connection, each job is added on
 * its own, so the others still go. Returns the refused jobs (index → BullMQ's error). Throws when the
 * failure is the connection's (or every job then fails that way): nothing is blamed on a job.
 */
export async function addBulkIsolated(queue: Queue, jobs: readonly BulkJob[]): Promise<Map<number, Error>> {
  const refused = new Map<number, Error>();
  if (jobs.length === 0) return refused;
  try {
    if (canAddInOneCall(queue)) {
      const answers = await addJobsInOneCall(queue, jobs);
      answers.forEach((a, i) => {
        if (a instanceof Error) refused.set(i, a);
      });
    } else {
      await queue.addBulk(jobs.map(({ name, data, opts }) => ({ name, data, opts })));
    }
    return refused;
  } catch (err) {
    if (isTransientError(err)) throw err;
  }
  const results = await Promise.allSettled(jobs.map((j) => queue.add(j.name, j.data, j.opts)));
  let transient: unknown;
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') return;
    if (isTransientError(r.reason)) transient ??= r.reason;
    else refused.set(i, r.reason as Error);
  });
  if (transient !== undefined) throw transient;
  return refused;
}

/**
 * Jobs per add call at a burst: a queue's jobs go in chunks of this size, all in flight at once, so
 * that Redis runs the first chunk while this process still builds the next, and consumers see the
 * first jobs sooner. One call of 100 holds Redis ~2 ms (a script call runs whole).
 */
export const ADD_BULK_CHUNK = 100;

/**
 * `addBulkIsolated` for each queue's jobs, at once, in chunks of `ADD_BULK_CHUNK` all in flight; the
 * refused jobs' tags with BullMQ's errors.
 */
export async function addBulkByQueue<T>(
  byQueue: ReadonlyMap<string, readonly { tag: T; job: BulkJob }[]>,
  queueOf: (name: string) => Queue,
  chunk = ADD_BULK_CHUNK,
): Promise<{ tag: T; err: Error }[]> {
  const calls: Promise<{ tag: T; err: Error }[]>[] = [];
  for (const [name, list] of byQueue) {
    for (let from = 0; from < list.length; from += chunk) {
      const part = list.slice(from, from + chunk);
      calls.push(
        addBulkIsolated(
          queueOf(name),
          part.map((e) => e.job),
        ).then((bad) => [...bad].map(([i, err]) => ({ tag: part[i]!.tag, err }))),
      );
    }
  }
  return (await Promise.all(calls)).flat();
}
