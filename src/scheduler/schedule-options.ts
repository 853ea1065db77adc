import type { BackoffOptions, JobsOptions } from 'bullmq';
import type { Middleware } from '../queue/pipeline.js';

/** What happens to occurrences that the scheduler sees after `fireAt + misfireGraceMs`. */
export type MisfirePolicy = 'once' | 'all' | 'skip';

/** BullMQ job options passed through to every occurrence's job (bullbeat owns `jobId`, `delay`, `repeat`). */
export type PassthroughJobOptions = Omit<JobsOptions, 'jobId' | 'delay' | 'repeat' | 'attempts' | 'backoff'>;

/** Options of one schedule (`schedule()`, `every()`, `cron()`). */
export interface ScheduleOptions {
  /** Stable id of the schedule in Redis. Default: the name. */
  id?: string;
  /** The BullMQ job name and the handler's name. Default: the function's name (required for an anonymous one). */
  name?: string;
  /** The BullMQ queue its occurrences go to. Default: the manager's `defaultQueue` (`'bullbeat'`). */
  queue?: string;
  /** Positional arguments: the handler is called with `...args, ctx`. JSON values. Default: `[]`. */
  args?: unknown[];
  /** Free-form JSON data carried on each job, for consumers that are not bullbeat handlers. Default: none. */
  data?: unknown;
  /** Concurrent runs allowed across every worker; 0 = unlimited. Default: `1`. */
  maxInstances?: number;
  /** Skip an occurrence while any run of the schedule is still going. Default: `true`. */
  coalesce?: boolean;
  /** Sillo-style middleware, first listed outermost (local to the process that defines the schedule). Default: `[]`. */
  middleware?: Middleware[];
  /** BullMQ attempts (1 = no retry). Default: `1`. */
  attempts?: number;
  /** BullMQ backoff between attempts (ms, or BullMQ's `{ type, delay }`). Default: none. */
  backoff?: number | BackoffOptions;
  /** The handler's deadline in ms (an `AbortSignal` plus a timeout error). Default: none. */
  timeoutMs?: number;
  /** Late occurrences: `'once'` one run for all, `'all'` each (up to `maxCatchUp`), `'skip'` none. Default: `'once'`. */
  misfire?: MisfirePolicy;
  /** An occurrence seen later than `fireAt + misfireGraceMs` is a misfire. Default: `60000`. */
  misfireGraceMs?: number;
  /** Occurrences older than this (relative to now) are never run, only recorded as missed. Default: unlimited. */
  catchUpWindowMs?: number;
  /** Under `misfire: 'all'`, at most this many late occurrences run (the newest). Default: `1000`. */
  maxCatchUp?: number;
  /** No occurrence before this instant (epoch ms or Date). Default: none. */
  startAt?: number | Date;
  /** No occurrence after this instant; the schedule completes. Default: none. */
  endAt?: number | Date;
  /** Complete after this many enqueued runs. Default: unlimited. */
  maxRuns?: number;
  /** IANA time zone of a `cron()` schedule. Default: `'UTC'`. */
  timezone?: string;
  /** Runs of schedules in one group never overlap anywhere in the cluster. Default: none. */
  exclusionGroup?: string;
  /** How long a run waits for its busy exclusion group before it is skipped (ms). Default: the worker's `exclusionWaitMs` (60000). */
  exclusionWaitMs?: number;
  /** BullMQ job options passed through (priority, removeOnComplete, ...). Default: bullbeat's retention (see README). */
  jobOptions?: PassthroughJobOptions;
}

/** `every(seconds, options)`: a schedule plus the interval trigger's options. */
export interface EveryOptions extends ScheduleOptions {
  /** Random delay in `[0, jitter]` seconds added to each occurrence. Default: `0`. */
  jitter?: number;
  /** An instant on the interval's grid (epoch ms or Date). Default: `0` (the epoch). */
  anchor?: number | Date;
}

/** `cron(expression, options)`: a schedule plus the cron trigger's options. */
export interface CronScheduleOptions extends ScheduleOptions {
  /** Random delay in `[0, jitter]` seconds added to each occurrence. Default: `0`. */
  jitter?: number;
  /** Day-of-month and day-of-week both restricted: `'or'` (Vixie) or `'and'`. Default: `'or'`. */
  dayMatch?: 'or' | 'and';
  /** DST overrides. Default: the DESIGN.md rules for fixed-time and interval expressions. */
  dst?: { gap?: 'shift' | 'skip'; overlap?: 'first' | 'both' };
}

/** A schedule with no local function: occurrences go to `queue` as jobs named `name`, for any consumer. */
export interface ScheduleTarget {
  queue?: string;
  name: string;
}
