import type { EventEmitter } from 'node:events';
import type { JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type pino from 'pino';
import type { HandlerEntry, WorkerScheduler } from '../../queue/worker-scheduler.js';
import { registerWorkerSide } from '../../queue/worker-side.js';
import type { Keys, RedisTarget, ScheduleDefinition } from '../../store/index.js';
import type {
  ManagerTuning,
  PauseOptions,
  ResolvedManagerOptions,
  ResolvedTuning,
  ResumeOptions,
  ScheduledJob,
  SchedulerEvents,
} from '../contract/index.js';
import type { FireHooks, FireLoopFootprint, FireLoopStats } from '../fire/index.js';
import type { NamedHandler } from './named-handler.js';
import type { RunHistoryAccess } from './scheduler-manager-types.js';

/** A stored schedule as the worker runtime reads it (`WorkerScheduler.get`). */
type WorkerJob = NonNullable<Awaited<ReturnType<NonNullable<WorkerScheduler['get']>>>>;

/**
 * A `SchedulerManager`'s plumbing: what the package's own parts (the worker runtime, the dashboard, the
 * CLI, the Nest module, metrics) read of a manager, and what its own operations are made of. It is not
 * on the manager's public face (a user calls the manager's verbs); the package reaches it through
 * `internalsOf(manager)`.
 */
export interface ManagerInternals extends WorkerScheduler {
  /** The manager itself, as the emitter of its events. */
  readonly events: EventEmitter<SchedulerEvents>;
  /** Its options, every default applied. */
  readonly options: ResolvedManagerOptions;
  /** The bullbeat key prefix. */
  readonly prefix: string;
  /** The deployment's keys over its partitions. */
  readonly keys: Keys;
  /** The run history, writes included. */
  readonly history: RunHistoryAccess;
  /** The manager's own Redis client (made on first use). */
  readonly redis: Redis;
  /** The alerts' own client (the expectations watch, the outbox, the heartbeat; made on first use). */
  readonly alertsRedis: Redis;
  /** The wake-channel subscriber connection, once made. */
  readonly wakeSubscriber: Redis | undefined;
  /** How many partitions the schedules are spread over. */
  readonly partitions: number;
  readonly logger: pino.Logger;
  /** Test hooks between the steps of a fire. */
  readonly hooks: FireHooks | undefined;
  /**
   * What BullMQ queues and workers connect with (`maxRetriesPerRequest: null`); on a Redis Cluster it
   * carries `cluster` (seed nodes).
   */
  connectionOptions(): RedisTarget;
  /** BullMQ's key prefix of a queue: undefined (`bull`) on a single Redis, `{bull:<queue>}` on a Cluster. */
  queuePrefixFor(queue: string): string | undefined;
  /**
   * The handler for a BullMQ job: schedule `scheduleId`'s own function when it is defined here under
   * `name`; else, by name, a code schedule's function, or one registered with `handle()`.
   */
  handlerFor(
    name: string,
    scheduleId?: string,
  ): (HandlerEntry & { job: ScheduledJob | NamedHandler }) | undefined;
  /** Names with a handler in this process (code schedules' and `handle()`'s). */
  handlerNames(): string[];
  /** Every queue the schedules use: this process's and every one stored in Redis. */
  queueNames(): Promise<string[]>;
  /** The stored schedules (what a worker serves by default). */
  list(): Promise<ScheduledJob[]>;
  /** A stored schedule, as the worker runtime reads it too (the published `ScheduledJob` leaves `def` out). */
  get(id: string): Promise<(ScheduledJob & WorkerJob) | undefined>;
  pause(id: string, options?: PauseOptions): Promise<boolean>;
  resume(id: string, options?: ResumeOptions): Promise<boolean>;
  remove(id: string): Promise<boolean>;
  triggerNow(id: string): Promise<{ jobId: string; fireAt: number }>;
  /** Reload a handle from Redis. */
  refreshJob(job: ScheduledJob): Promise<boolean>;
  /** What this replica's fire loop holds in memory (while running). */
  readonly loopFootprint: FireLoopFootprint | undefined;
  /** Fire-loop counters of this replica (of its last run, once stopped). */
  readonly loopStats: FireLoopStats | undefined;
  /**
   * The BullMQ queue of a name (one per manager, made on first use). Asked each time: a test may put
   * its own function here.
   */
  queue(name: string): Queue;
  /** An occurrence's BullMQ options: the schedule's passthrough, retries, and a retention floor for dedupe. */
  jobOptions(def: ScheduleDefinition, jobId: string): JobsOptions;
  /** Emit one of the manager's events (the worker emits `failed` and `skipped` for runs in its process). */
  emit(event: string, payload: unknown): unknown;
  /**
   * Lay `change` over the tuning the manager was made with, checked as at construction (a
   * `ScheduleOptionsError` naming `tuning.<knob>`), before it starts: the CLI's `--tuning` and
   * `BULLBEAT_TUNING` over a jobs module's manager. Returns the knobs now in force. Throws once started.
   */
  retune(change: ManagerTuning): ResolvedTuning;
}

/**
 * Where a manager keeps its internals: a symbol of the global registry, on a non-enumerable property,
 * so that a manager made by one copy of bullbeat (a jobs module's) is read by another (the CLI's).
 */
const INTERNALS = Symbol.for('bullbeat.managerInternals');

/** Record a manager's internals (its constructor does); the worker runtime finds them too. */
export function attachInternals(manager: object, internals: ManagerInternals): void {
  Object.defineProperty(manager, INTERNALS, { value: internals });
  registerWorkerSide(manager, internals);
}

/** The plumbing of a `SchedulerManager`. Throws a `TypeError` for anything else. */
export function internalsOf(manager: object): ManagerInternals {
  const internals = (manager as { [INTERNALS]?: ManagerInternals })[INTERNALS];
  if (!internals) throw new TypeError('bullbeat: expected a SchedulerManager');
  return internals;
}
