import type { RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { OccurrenceRunOptions } from '../store/index.js';
import type { Middleware, ScheduledJobLike } from './pipeline.js';

/** The code-defined handler of one job name, as the scheduler hands it to a worker. */
export interface HandlerEntry {
  /** The user's function; called with `...args, ctx`. */
  fn: (...args: never[]) => unknown;
  /** The schedule's arguments (used when the job carries none). */
  args?: readonly unknown[];
  middleware?: readonly Middleware[];
  /** The schedule, as its middleware sees it, and the queue its jobs go to (what a worker serves). */
  job: ScheduledJobLike & { queue?: string };
  /**
   * Asked by name only, the name is that of several different functions here: these schedules'. A job
   * that names none of them is refused (`AmbiguousHandlerError`), never run with one of them.
   */
  ambiguous?: readonly string[];
}

/**
 * What the worker runtime needs of a scheduler: `SchedulerManager` has all of it. Anything with these
 * members works, so a worker can run without the full manager.
 */
export interface WorkerScheduler {
  /** The bullbeat key prefix (records and leases live under `{prefix}:bb`). */
  readonly prefix: string;
  /** What BullMQ workers connect with. */
  connectionOptions(): RedisOptions;
  /**
   * The handler registered in code for a BullMQ job name: the function of schedule `scheduleId` when it
   * is defined here under that name (schedules on functions of the same name each run their own),
   * else the one for the name.
   */
  handlerFor(name: string, scheduleId?: string): HandlerEntry | undefined;
  /** Every job name `handlerFor` answers (their queues are the default of `queues`). */
  handlerNames(): string[];
  /** The stored schedules (runtime ones too): a queue of one whose name has a handler is served. */
  list?(): Promise<readonly { name: string; queue: string }[]>;
  /** A stored schedule: what a worker reads for a job of a `plain` schedule (its args and overlap rules). */
  get?(id: string): Promise<{ def: { args: readonly unknown[]; run: OccurrenceRunOptions } } | undefined>;
  /** BullMQ's own key prefix for the queues, when the scheduler sets one (BullMQ's default: `bull`). */
  readonly queuePrefix?: string;
  /** BullMQ's key prefix of one queue, when it depends on the queue (`{bull:<queue>}` on a Redis Cluster); wins over `queuePrefix`. */
  queuePrefixFor?(queue: string): string | undefined;
  /** The deployment's partition count (see `SchedulerManagerOptions.partitions`). Default: 1. */
  readonly partitions?: number;
  readonly logger?: Logger;
  /**
   * Its options: `auditLimit` bounds the audit entry a pause on failure writes (default: 100);
   * `commandTimeoutMs` is the default of the worker's own.
   */
  readonly options?: { readonly auditLimit?: number; readonly commandTimeoutMs?: number };
  /** Typed events: the worker emits `failed` and `skipped` for runs in its process. */
  emit?(event: string, payload: unknown): unknown;
}
