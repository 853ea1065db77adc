import type { JobsOptions } from 'bullmq';
import type { RecordLane } from '../keys/index.js';
import type { ScheduleDefinition } from './definition-schema.js';
import type { OccurrenceRunOptions } from './run-options.js';
import type { RunRecord } from './run-record.js';

/**
 * The data of the BullMQ job that carries one occurrence of a schedule. Written by the scheduler
 * when it enqueues; read by the worker runtime. Self-contained: a worker needs nothing else from the
 * schedule's definition to run it under the right overlap rules.
 */
export interface OccurrenceJobData {
  scheduleId: string;
  /** The intended fire time (epoch ms); for a manual run, when it was asked for. */
  fireAt: number;
  kind: RunRecord['kind'];
  /** Positional arguments for the handler (it is called with `...args, ctx`). */
  args: unknown[];
  /** Free-form data for consumers that are not bullbeat handlers. */
  data?: unknown;
  /** The bullbeat key prefix of the deployment that enqueued it (for records and leases). */
  prefix: string;
  /**
   * Its run options with the overlap rule resolved when the schedule was defined (`run.slot`), which
   * the worker applies as it is when the run is about to start. A job of an earlier release carries
   * no `slot`: the worker reads its rule once, as that release did (`resolveRunOptions`).
   */
  run: OccurrenceRunOptions;
}

/** What every occurrence's BullMQ job id starts with (`occurrenceJobId`). */
export const OCCURRENCE_JOB_ID_PREFIX = 'bb-';

/**
 * The BullMQ job id of an occurrence, derived from `(scheduleId, fireAt)` so that enqueueing the
 * same occurrence twice is a no-op. BullMQ forbids `:` in custom ids, hence the separators.
 */
export function occurrenceJobId(scheduleId: string, fireAt: number, manual: RecordLane = false): string {
  const lane = manual === 'backfill' ? 'b' : manual ? 'm' : '';
  return `${OCCURRENCE_JOB_ID_PREFIX}${encodeURIComponent(scheduleId).replaceAll(':', '%3A')}-${lane}${fireAt}`;
}

/** The occurrence a job id names (`occurrenceJobId`), or null for any other job. */
export function parseOccurrenceJobId(
  jobId: string,
): { scheduleId: string; fireAt: number; manual: RecordLane } | null {
  if (!jobId.startsWith(OCCURRENCE_JOB_ID_PREFIX)) return null;
  const dash = jobId.lastIndexOf('-');
  const m = /^([mb]?)(\d+)$/.exec(jobId.slice(dash + 1));
  if (dash <= 2 || !m) return null;
  let scheduleId: string;
  try {
    scheduleId = decodeURIComponent(jobId.slice(3, dash));
  } catch {
    return null;
  }
  const fireAt = Number(m[2]);
  const manual: RecordLane = m[1] === 'b' ? 'backfill' : m[1] === 'm';
  return occurrenceJobId(scheduleId, fireAt, manual) === jobId ? { scheduleId, fireAt, manual } : null;
}

/**
 * An occurrence's BullMQ options: the schedule's passthrough, attempts/backoff, and its retention:
 * `removeOnComplete`/`removeOnFail` as the schedule gives them. Without one, a finished job is kept
 * `keepSec` (an hour by default) and at most 1,000 per queue; a failed one a week. Exactly once does not
 * rest on keeping jobs: an occurrence enqueued again after its job was removed is refused by the
 * records (a take-over reads the record first; the worker runtime refuses a job whose record says it
 * ran, start-runs-1).
 */
export function jobOptionsFor(def: ScheduleDefinition, jobId: string, keepSec: number): JobsOptions {
  const given = def.jobOptions;
  return {
    ...given,
    jobId,
    attempts: def.attempts,
    ...(def.backoff !== undefined && { backoff: def.backoff }),
    removeOnComplete: given?.removeOnComplete ?? { age: keepSec, count: KEPT_FINISHED_JOBS },
    removeOnFail: given?.removeOnFail ?? { age: Math.max(keepSec, 7 * 24 * 3600) },
  };
}

/** Finished jobs kept per queue when the schedule says nothing (`removeOnComplete`). */
const KEPT_FINISHED_JOBS = 1000;

/**
 * The data of the BullMQ job of one occurrence of `def`, by its payload: an `OccurrenceJobData`, or
 * the schedule's own data (`{}` when it has none) when the payload is `plain`.
 */
export function jobDataFor(
  def: ScheduleDefinition,
  fireAt: number,
  kind: OccurrenceJobData['kind'],
  prefix: string,
): unknown {
  return def.payload === 'plain' ? (def.data ?? {}) : occurrenceJobData(def, fireAt, kind, prefix);
}

/** The `wrapped` data of the BullMQ job of one occurrence of `def`. */
export function occurrenceJobData(
  def: ScheduleDefinition,
  fireAt: number,
  kind: OccurrenceJobData['kind'],
  prefix: string,
): OccurrenceJobData {
  const data: OccurrenceJobData = { scheduleId: def.id, fireAt, kind, args: def.args, prefix, run: def.run };
  if (def.data !== undefined) data.data = def.data;
  return data;
}
