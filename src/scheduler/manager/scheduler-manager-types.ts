import type { RunCounter, RunHistory, RunRecord } from '../../store/index.js';
import type { ScheduledJob } from '../contract/index.js';

/** A schedule's or handler's function: a worker calls it with the schedule's args, then the `RunContext`. */
export type JobFunction = (...args: never[]) => unknown;

/**
 * `every()` / `cron()`: a function wrapper returning the `ScheduledJob`, or a method decorator of
 * either flavour: TC39 (the default) or legacy (`experimentalDecorators`, as in NestJS apps).
 */
export interface ScheduleDecorator {
  // The method-decorator overloads come first: TypeScript checks a decorator against the first
  // overloads, and `ScheduledJob` is not a valid method-decorator return type.
  // biome-ignore lint/suspicious/noExplicitAny: any method signature is accepted
  <This, F extends (this: This, ...args: any[]) => unknown>(
    fn: F,
    context: ClassMethodDecoratorContext<This, F>,
  ): void;
  /** Legacy (`experimentalDecorators`): registered when the class is defined (see `cron()`). */
  // biome-ignore lint/suspicious/noExplicitAny: any method signature is accepted
  <F extends (...args: any[]) => unknown>(
    target: object,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<F>,
  ): void;
  // biome-ignore lint/suspicious/noExplicitAny: any function signature is accepted
  <F extends (...args: any[]) => unknown>(fn: F): ScheduledJob;
}

/**
 * `handle(name?)`: a function wrapper (returns the function) or a method decorator of either flavour,
 * registering a worker handler for a job name without defining a schedule.
 */
export interface HandlerDecorator {
  // biome-ignore lint/suspicious/noExplicitAny: any method signature is accepted
  <This, F extends (this: This, ...args: any[]) => unknown>(
    fn: F,
    context: ClassMethodDecoratorContext<This, F>,
  ): void;
  /** Legacy (`experimentalDecorators`): registered when the class is defined. */
  // biome-ignore lint/suspicious/noExplicitAny: any method signature is accepted
  <F extends (...args: any[]) => unknown>(
    target: object,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<F>,
  ): void;
  // biome-ignore lint/suspicious/noExplicitAny: any function signature is accepted
  <F extends (...args: any[]) => unknown>(fn: F): F;
}

/**
 * Schedules by status and runs by outcome, counted over the whole deployment (Redis); `uptime` is this
 * manager's (the fields of Sillo's `SchedulerStats`).
 */
export interface SchedulerStats {
  jobsTotal: number;
  jobsActive: number;
  jobsPaused: number;
  jobsCompleted: number;
  /** Schedules errored now (they cannot be planned or enqueued; see `ScheduledJob.error`). */
  jobsErrored: number;
  /** Runs that finished successfully (written by workers). */
  runs: number;
  errors: number;
  skipped: number;
  missed: number;
  /** Occurrences not enqueued while the previous one still waited in its queue (backpressure). */
  coalesced: number;
  /** Times a schedule became errored, over the deployment (cumulative; Redis `totals.errored`). */
  erroredTotal: number;
  /** Seconds since this manager started (0 when not started). */
  uptime: number;
}

export type { ListQuery } from '../../store/index.js';

/** The run records of a deployment's schedules: what `SchedulerManager.history` reads. */
export interface RunHistoryReader {
  /** A schedule's records, newest first, at most `limit` (default: the history limit). */
  list(scheduleId: string, limit?: number): Promise<RunRecord[]>;
  /**
   * The record of one scheduled occurrence (by its fire time), or null; one coalesced in a span while a
   * consumer or the scheduler was behind reads as `list` shows it (`skipped`, `coalesced`, its `standIn`).
   */
  get(scheduleId: string, fireAt: number): Promise<RunRecord | null>;
  /** How many records a schedule keeps now. */
  size(scheduleId: string): Promise<number>;
  /** A schedule's counters (runs, errors, skipped, missed...), over its whole life. */
  counts(scheduleId: string): Promise<Record<RunCounter, number>>;
  /** The counters summed over the deployment. */
  totals(): Promise<Record<RunCounter, number>>;
}

/** The run records of the deployment's schedules, newest first: `history(id, limit?)`, or its methods. */
export type HistoryAccess = RunHistoryReader & ((scheduleId: string, limit?: number) => Promise<RunRecord[]>);

/** The full run history (writes included), callable like `HistoryAccess`: what the package's own parts use. */
export type RunHistoryAccess = RunHistory & ((scheduleId: string, limit?: number) => Promise<RunRecord[]>);
