import type { Cluster, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type {
  ClusterConnection,
  RedisTarget,
  ReplicaAcksOptions,
  StoredExpectations,
} from '../../store/index.js';
import type { ResolvedAlertOptions } from './alert-options.js';
import type { ForeignOutcomesOptions, ResolvedForeignOutcomesOptions } from './foreign-outcomes-options.js';
import type { ManagerTuning } from './manager-tuning.js';
import type { ScheduleExpectations } from './schedule-expectations.js';

/** What this process does with a manager: fire schedules, or only define and inspect them. */
export type SchedulerRole = 'scheduler' | 'client';

/** Options of a `SchedulerManager`. */
export interface SchedulerManagerOptions {
  /**
   * Key prefix of the deployment; every bullbeat key lives under the hash tag `{prefix}`.
   * @defaultValue `BULLBEAT_PREFIX`, else `'bullbeat'`
   */
  prefix?: string;
  /**
   * Redis: a URL, ioredis options, a Redis Cluster as `{ cluster: 'host:port,...' | nodes, redisOptions?,
   * clusterOptions? }`, or an ioredis `Cluster` (bullbeat opens its own connections like it).
   * @defaultValue `REDIS_CLUSTER_NODES` (a cluster's seed nodes, `host:port,...`), else `REDIS_URL`,
   * else `redis://127.0.0.1:6379`
   */
  connection?: string | RedisOptions | ClusterConnection | Cluster;
  /**
   * How many hash-tagged partitions the schedules are spread over (see src/store/keys/partitions.ts). Every
   * process of a deployment must use the same count (it decides where a schedule's keys are); it is
   * recorded in Redis at the first start and a different one is refused.
   * @defaultValue `32` on a Redis Cluster, `1` on a single Redis (the key names of earlier releases)
   */
  partitions?: number;
  /**
   * The queue of schedules and handlers that name none. Named after `prefix` by default, so that each
   * deployment on a shared Redis has its own (BullMQ forbids `:`: it becomes `-`, and braces are
   * dropped). Set `'bullbeat'` to keep the default queue of releases that named every deployment's
   * default queue `bullbeat` (docs/upgrading.md).
   * @defaultValue the prefix: `'bullbeat'` for the default prefix
   */
  defaultQueue?: string;
  /**
   * A pino logger.
   * @defaultValue pino at `LOG_LEVEL` (else `'info'`), named `bullbeat`
   */
  logger?: Logger;
  /**
   * Local clock (epoch ms), used only for local bookkeeping (uptime, lateness of wake-ups); due-ness is
   * always judged against Redis TIME. Tests inject a skewed one.
   * @defaultValue `Date.now`
   */
  clock?: () => number;
  /**
   * `'scheduler'`: `start()` upserts the code's schedules, pauses orphaned ones and runs the fire loop.
   * `'client'`: `start()` only upserts; nothing fires from this process (web apps, the dashboard).
   * @defaultValue `'scheduler'`
   */
  role?: SchedulerRole;
  /**
   * In the scheduler role, pause (as orphaned) the code schedules that this process's code does not
   * define. `false` for a replica that runs without the jobs module (runtime schedules only): the
   * code schedules belong to the replicas that load it.
   * @defaultValue `true`
   */
  pauseOrphans?: boolean;
  /**
   * Occurrence records kept per schedule.
   * @defaultValue `100`
   */
  historyLimit?: number;
  /**
   * Audit entries kept per schedule (`auditTrail(id)`: who changed what, and when), newest first;
   * 0 keeps none.
   * @defaultValue `100`
   */
  auditLimit?: number;
  /**
   * How long a removed schedule's audit trail is kept, so that the remove can be investigated (ms);
   * 0 deletes it with the schedule.
   * @defaultValue `604800000` (7 days)
   */
  auditRetentionMs?: number;
  /**
   * How long a completed schedule stays before it is pruned (ms).
   * @defaultValue `3600000` (1 h)
   */
  completedRetentionMs?: number;
  /**
   * The earlier place of `tuning.claimBatch`, read as it.
   * @deprecated Give `tuning.claimBatch` (one warning per process; docs/tuning.md).
   */
  claimBatch?: number;
  /**
   * The earlier place of `tuning.claimLeaseMs`, read as it.
   * @deprecated Give `tuning.claimLeaseMs` (one warning per process; docs/tuning.md).
   */
  claimLeaseMs?: number;
  /**
   * The earlier place of `tuning.claimAheadMs`, read as it.
   * @deprecated Give `tuning.claimAheadMs` (one warning per process; docs/tuning.md).
   */
  claimAheadMs?: number;
  /**
   * The CPU time (ms) one schedule's next fire time may take to compute: planning a claim that
   * overruns it errors that schedule alone (`TriggerBudgetError`: its exclusions or walk cannot be
   * computed in time), and a definition whose first fire time overruns it is refused. Measured in
   * this process's CPU, so a loaded box does not trip it; a built-in trigger's walk stops at it. At
   * most a quarter of `claimLeaseMs` on a scheduler.
   * @defaultValue `50`
   */
  triggerBudgetMs?: number;
  /**
   * The earlier place of `tuning.maxSleepMs`, read as it.
   * @deprecated Give `tuning.maxSleepMs` (one warning per process; docs/tuning.md).
   */
  maxSleepMs?: number;
  /**
   * An occurrence enqueued later than this after its fire time emits `late` (ms).
   * @defaultValue `1000`
   */
  lateThresholdMs?: number;
  /**
   * Deployment-wide fire-rate cap: at most this many occurrences become runnable per second, across
   * every replica (a budget of evenly spaced slots per second in Redis that each enqueue takes from).
   * An aligned burst is smoothed: each occurrence is added as a delayed job due at the first free slot
   * from its fire time, no sooner than its add can land (a lead learnt from the replica's adds), and its
   * record carries the delay (`capDelayMs`). Nothing is coalesced or skipped for the cap. It bounds when
   * jobs become runnable, not when a worker behind starts them. Give every replica the same value.
   * 0 = no cap.
   * @defaultValue `0`
   */
  maxFiresPerSecond?: number;
  /**
   * How long BullMQ keeps a finished occurrence job (s) when the schedule's `jobOptions` give no
   * `removeOnComplete` (then also at most 1,000 per queue) or `removeOnFail`. A schedule's own
   * retention is used as given: exactly once rests on bullbeat's records and claims, not on kept jobs.
   * @defaultValue `3600`
   */
  keepFinishedJobsSec?: number;
  /**
   * In the scheduler role, record the outcome of occurrences that a consumer other than bullbeat's
   * worker runtime ran (a plain BullMQ `Worker`), from BullMQ's events and, for events missed, a
   * periodic reconciliation. `false` turns it off.
   * @defaultValue on (`ForeignOutcomesOptions` defaults)
   */
  foreignOutcomes?: boolean | ForeignOutcomesOptions;
  /**
   * The earlier place of `tuning.backpressure`, read as it.
   * @deprecated Give `tuning.backpressure` (one warning per process; docs/tuning.md).
   */
  backpressure?: boolean;
  /**
   * The earlier place of `tuning.commitAhead`, read as it.
   * @deprecated Give `tuning.commitAhead` (one warning per process; docs/tuning.md).
   */
  commitAhead?: boolean;
  /**
   * The earlier place of `tuning.replicaAcks`, read as it.
   * @deprecated Give `tuning.replicaAcks` (one warning per process; docs/tuning.md).
   */
  replicaAcks?: false | { replicas?: number; timeoutMs?: number };
  /**
   * The longest a command on bullbeat's own Redis clients (the manager's: claims, completions, records,
   * reads) waits for its answer (ms). One unanswered by then (Redis paused or unreachable, a Cluster
   * node dead while its slots move) fails with a `RedisCommandTimeoutError`, which each path handles as
   * any failed write (a fire loop's claims lapse and are claimed again), instead of waiting without end
   * in ioredis's offline queue. BullMQ's own connections (queues, workers) keep BullMQ's settings.
   * `0`: no deadline.
   * @defaultValue `5000`
   */
  commandTimeoutMs?: number;
  /**
   * The fire loop's tuning knobs (`claimBatch`, `claimLeaseMs`, `claimAheadMs`, `maxSleepMs`,
   * `backpressure`, `commitAhead`, `replicaAcks`): defaults that serve most deployments, to change
   * after measuring (docs/tuning.md). An unknown key is refused naming it.
   * @defaultValue every knob at its default
   */
  tuning?: ManagerTuning;
  /**
   * The deployment's expectations: each schedule's own `expect` fields win over these (see
   * `ScheduleExpectations`, docs/being-told.md). Notifiers themselves are the operator's
   * (`--notifier`, `BULLBEAT_NOTIFIERS`), never code's.
   * @defaultValue none
   */
  expect?: ScheduleExpectations;
}

export interface ResolvedManagerOptions {
  prefix: string;
  connection: string | RedisOptions | ClusterConnection | Cluster;
  /** What every client is made from (`cluster` set on a Redis Cluster). */
  target: RedisTarget;
  partitions: number;
  defaultQueue: string;
  logger: Logger | undefined;
  clock: () => number;
  role: SchedulerRole;
  pauseOrphans: boolean;
  historyLimit: number;
  auditLimit: number;
  auditRetentionMs: number;
  completedRetentionMs: number;
  claimBatch: number;
  claimLeaseMs: number;
  claimAheadMs: number;
  triggerBudgetMs: number;
  maxSleepMs: number;
  lateThresholdMs: number;
  maxFiresPerSecond: number;
  keepFinishedJobsSec: number;
  foreignOutcomes: ResolvedForeignOutcomesOptions;
  backpressure: boolean;
  commitAhead: boolean;
  /** Replica acknowledgement of each enqueue; undefined: none. */
  replicaAcks: ReplicaAcksOptions | undefined;
  /** The deadline of each command on bullbeat's own clients (ms; 0: none). */
  commandTimeoutMs: number;
  /** The deployment's expectations, stored form (`expect`); undefined: none. */
  expect: StoredExpectations | undefined;
  /** Notifiers and heartbeat, from the environment. */
  alerts: ResolvedAlertOptions;
  /** The tuning knobs given at the top level (deprecated names), for the one warning at construction. */
  deprecatedTuning: readonly string[];
  /** The tuning knobs as given (either place), before the defaults: what `retunedOptions` lays a change over. */
  givenTuning: Readonly<ManagerTuning>;
}
