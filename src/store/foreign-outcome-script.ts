import type { Redis } from 'ioredis';
import type { Keys } from './keys.js';
import type { RunRecord } from './run-record.js';
import { defineStoreScripts } from './scripts.js';

/** One finished occurrence as BullMQ tells it. */
export interface ForeignOutcome {
  scheduleId: string;
  fireAt: number;
  /** The record field (`occurrenceField`): the fire time, `m<time>` for a manual run, `b<time>` for a backfilled one. */
  field: string;
  queue: string;
  jobId: string;
  outcome: 'succeeded' | 'failed';
  /** From the job's data; kept only when no record was there yet. */
  kind: RunRecord['kind'];
  /** BullMQ's `processedOn` (when the last attempt started), if known. */
  startedAt?: number;
  /** BullMQ's `finishedOn`, if known. */
  finishedAt?: number;
  /** BullMQ's `attemptsMade`, if known. */
  attempts?: number;
  /** BullMQ's `failedReason`, for a failed job. */
  error?: string;
}

/**
 * Record, once, the outcome of an occurrence a consumer other than bullbeat's worker runtime ran
 * (`lua/foreign-outcome-5.lua`: only over an `enqueued` record of the same job, or as a first record
 * the history would keep): true when written and counted, false when left alone.
 */
export async function recordForeignOutcome(
  redis: Redis,
  k: Keys,
  historyLimit: number,
  o: ForeignOutcome,
): Promise<boolean> {
  defineStoreScripts(redis);
  const patch: Partial<RunRecord> = {
    scheduleId: o.scheduleId,
    fireAt: o.fireAt,
    outcome: o.outcome,
    consumer: 'foreign',
    queue: o.queue,
    jobId: o.jobId,
    ...(o.startedAt !== undefined && { startedAt: o.startedAt }),
    ...(o.finishedAt !== undefined && { finishedAt: o.finishedAt }),
    ...(o.attempts !== undefined && { attempts: o.attempts }),
    ...(o.error !== undefined && { error: o.error }),
  };
  const written = await redis.bbForeignOutcome(
    k.runs(o.scheduleId),
    k.runIndex(o.scheduleId),
    k.counts(o.scheduleId),
    k.of(o.scheduleId).totals,
    k.of(o.scheduleId).schedules,
    o.field,
    o.fireAt,
    o.scheduleId,
    o.jobId,
    JSON.stringify(patch),
    historyLimit,
    o.outcome === 'failed' ? 'runs,errors' : 'runs',
    o.kind,
  );
  return written === 1;
}
