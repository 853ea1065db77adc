import type { WorkerOptions as BullWorkerOptions } from 'bullmq';
import type { Logger } from 'pino';
import type { WorkerClock } from './worker-clock.js';

/** A queue rate limit, enforced by BullMQ across every worker of the queue. */
export interface QueueRateLimit {
  /** Jobs allowed per `durationMs`. */
  max: number;
  durationMs: number;
}

export interface CreateWorkerOptions {
  /**
   * Queues to consume.
   * @defaultValue every queue where this process has a handler for at least one job name (see `handledQueues`); other consumers' queues are left alone
   */
  queues?: readonly string[];
  /**
   * Jobs each queue's worker runs at once in this process.
   * @defaultValue 10
   */
  concurrency?: number;
  /**
   * On `close()`, how long running jobs may go on before their signal aborts and they fail with a
   * `WorkerShutdownError`.
   * @defaultValue 30 000 ms
   */
  shutdownGraceMs?: number;
  /**
   * Rate limit of every consumed queue (BullMQ's limiter).
   * @defaultValue none
   */
  limiter?: QueueRateLimit;
  /**
   * Per-queue rate limits, overriding `limiter`.
   * @defaultValue none
   */
  limiters?: Readonly<Record<string, QueueRateLimit>>;
  /**
   * Lease lifetime: a dead worker's run slot frees this long after its last renewal.
   * @defaultValue 30 000 ms
   */
  leaseTtlMs?: number;
  /**
   * The earlier place of `tuning.leaseRenewMs`, read as it.
   * @deprecated Give `tuning.leaseRenewMs` (one warning per process; docs/tuning.md).
   */
  leaseRenewMs?: number;
  /**
   * The earlier place of `tuning.groupPollMs`, read as it.
   * @deprecated Give `tuning.groupPollMs` (one warning per process; docs/tuning.md).
   */
  groupPollMs?: number;
  /**
   * How long a run waits for its exclusion group when the job does not say.
   * @defaultValue 60 000 ms
   */
  exclusionWaitMs?: number;
  /**
   * The earlier place of `tuning.slotWaitPollMs`, read as it.
   * @deprecated Give `tuning.slotWaitPollMs` (one warning per process; docs/tuning.md).
   */
  slotWaitPollMs?: number;
  /**
   * How often the runtime renews and asks again: knobs to change after measuring, apart from what a
   * user must set (docs/tuning.md). An unknown key is refused naming it.
   * @defaultValue every knob at its default
   */
  tuning?: WorkerTuning;
  /**
   * Records kept per schedule (should match the scheduler's).
   * @defaultValue 100
   */
  historyLimit?: number;
  /**
   * The longest a command on the runtime's own Redis client (run starts and ends, lease renewals,
   * records) waits for its answer (ms). One unanswered by then fails with a `RedisCommandTimeoutError`
   * (a run that cannot start fails its attempt; one that cannot record its end has its lease lapse), so
   * a handler never waits without end on a dead Redis or Cluster node, holding its concurrency slot and
   * `close()`. BullMQ's own connections keep BullMQ's settings. `0`: no deadline.
   * @defaultValue the scheduler's `commandTimeoutMs`, else `5000`
   */
  commandTimeoutMs?: number;
  /**
   * Logger.
   * @defaultValue `scheduler.logger`, else a pino logger at `info`
   */
  logger?: Logger;
  /**
   * @internal Time source for record times and timeouts (tests pass a manual one); left out of the
   * published types.
   * @defaultValue the system clock
   */
  clock?: WorkerClock;
  /** Further BullMQ worker options (e.g. `removeOnComplete`), applied to every queue's worker. */
  bullmq?: Partial<Omit<BullWorkerOptions, 'concurrency' | 'limiter' | 'connection' | 'autorun'>>;
}

/** The worker runtime's tuning: how often it renews and asks again (docs/tuning.md). */
export interface WorkerTuning {
  /**
   * How long a run's `running` record may lag its start (ms). The start check decides the run (its
   * slot, its fencing token) at once, but writes its record behind: with the outcome when the run
   * ends within this time (one write instead of two, none on the burst's critical path), else when
   * it has run this long. A worker that dies meanwhile leaves the occurrence's `enqueued` record, and
   * BullMQ's stalled check delivers the job again, which knows the attempt was lost (docs/records.md).
   * `0`: the start check writes the record.
   * @defaultValue 1000 ms
   */
  recordLagMs?: number;
  /**
   * How often a running handler renews its leases (ms).
   * @defaultValue `leaseTtlMs / 3`
   */
  leaseRenewMs?: number;
  /**
   * How often a run waiting for its exclusion group asks again (ms).
   * @defaultValue `100`
   */
  groupPollMs?: number;
  /**
   * How often a run waiting for its schedule's busy run slot (a retry owed its run, an occurrence
   * buffered by its overlap policy) asks again (ms); it waits in BullMQ's delayed set meanwhile, and
   * the run that frees the slot promotes it at once.
   * @defaultValue `1000`
   */
  slotWaitPollMs?: number;
  /**
   * How long a success's outcome may be held behind a burst (ms): while jobs wait on its queue and
   * other runs of the worker are under way, a success gives its slot back at once and its outcome is
   * written after the worker's last start of the burst, at most this long after it ended
   * (docs/records.md). Off by default: a worker killed while it holds outcomes leaves those records
   * `enqueued` (or `running`), though their jobs completed (`schedule:why` says they ran), and
   * nothing writes them afterwards yet.
   * @defaultValue `0` (never held)
   */
  outcomeHoldMs?: number;
}

/** The worker's tuning knobs, in the order docs/tuning.md gives them. */
export const WORKER_TUNING_KEYS = [
  'leaseRenewMs',
  'groupPollMs',
  'slotWaitPollMs',
  'recordLagMs',
  'outcomeHoldMs',
] as const satisfies readonly (keyof WorkerTuning)[];

/** `CreateWorkerOptions` with every default applied. */
export interface ResolvedWorkerOptions {
  queues: readonly string[];
  concurrency: number;
  shutdownGraceMs: number;
  limiters: Readonly<Record<string, QueueRateLimit>>;
  leaseTtlMs: number;
  leaseRenewMs: number;
  groupPollMs: number;
  exclusionWaitMs: number;
  slotWaitPollMs: number;
  historyLimit: number;
  recordLagMs: number;
  /** How long a success's outcome may be held behind a burst (ms; 0: never). */
  outcomeHoldMs: number;
  /** Audit entries kept per schedule (the scheduler's `auditLimit`). */
  auditLimit: number;
  commandTimeoutMs: number;
  logger: Logger;
  clock: WorkerClock;
  bullmq: NonNullable<CreateWorkerOptions['bullmq']>;
}
