import { EventEmitter } from 'node:events';
import { type ConnectionOptions, Job, type Worker } from 'bullmq';
import pino from 'pino';
import { ConfigError } from '../errors/config-error.js';
import { ScheduleOptionsError } from '../errors/schedule-options-error.js';
import { WorkerShutdownError } from '../errors/worker-shutdown-error.js';
import { uniqueKeys } from '../logging/unique-keys.js';
import {
  announceRuntimeQueues,
  bullConnection,
  checkDeployment,
  DEFAULT_AUDIT,
  DEFAULT_COMMAND_TIMEOUT_MS,
  holdQueue,
  jobsWaiting,
  keys,
  openRedis,
  QUEUE_HOLD_MS,
  RUNTIME_ANNOUNCE_MS,
  releaseQueue,
  withCommandTimeout,
} from '../store/index.js';
import { traceRun } from '../tracing/run-tracing.js';
import { failedBeforeProcessing } from './attempt-state.js';
import { deprecatedTuningWarning, gatherTuning } from './gather-tuning.js';
import { handledQueues } from './handled-queues.js';
import { OccurrenceRunner } from './occurrence-runner.js';
import { RuntimeWorker } from './runtime-worker.js';
import { systemClock } from './worker-clock.js';
import {
  type CreateWorkerOptions,
  type ResolvedWorkerOptions,
  WORKER_TUNING_KEYS,
  type WorkerTuning,
} from './worker-options.js';
import type { WorkerScheduler } from './worker-scheduler.js';
import { workerSideOf } from './worker-side.js';

/** After aborting overdue runs, how long `close()` waits for BullMQ to settle them before forcing. */
const ABORT_SETTLE_MS = 10_000;

/** The running workers of one `createWorker` call. */
export interface WorkerHandle extends AsyncDisposable {
  /** The queues consumed. */
  readonly queues: readonly string[];
  /** One BullMQ `Worker` per queue (for events such as `completed` and `failed`). */
  readonly workers: readonly Worker[];
  /** Resolves once every worker is connected and taking jobs. */
  ready(): Promise<void>;
  /** Jobs running in this process right now. */
  running(): number;
  /**
   * This process's runtime events: `pausedOnFailure` (`PausedOnFailureEvent` plus `queue`) when a run's
   * failure paused its schedule (`pauseOnFailure`). Also emitted on the scheduler when it has `emit`.
   */
  readonly events: EventEmitter;
  /**
   * Stop taking jobs; let running ones finish for up to `graceMs` (default: `shutdownGraceMs`), then
   * abort them through their signal (they fail with a `WorkerShutdownError`) and close. Safe to call
   * twice: callers share one shutdown.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Consume the scheduler's queues with BullMQ workers that run each job's handler by name, under its
 * middleware, its timeout, and the cluster-wide overlap and exclusion-group rules carried by the job.
 *
 * - By default it serves only the queues where it has a handler for at least one job name
 *   (`handledQueues`); an explicit `queues` list overrides that. `bullbeat worker` and
 *   `workers/worker.ts` follow the same rule, being this same code path.
 * - A job name with no handler here fails with an `UnknownHandlerError` naming it; BullMQ keeps the
 *   failed job, so it can be retried once the handler is deployed.
 * - When the run is about to start, it takes a lease on one of its schedule's run slots
 *   (`maxInstances`, `coalesce`, counted over every worker). With no slot free the occurrence is
 *   recorded `skipped` (reason `overlap`) and its BullMQ job *completes* with `{ skipped: 'overlap' }`
 *   as its return value: it is not a failure, and it must not be retried.
 * - With an `exclusionGroup`, it then waits its turn for the group (fair order) for up to
 *   `exclusionWaitMs`, holding its run slot and a worker concurrency slot while it waits; past the
 *   bound it is recorded `skipped` (reason `exclusion-group`) and completes likewise. The wait does
 *   not count against `timeoutMs`.
 * - An attempt after one that started (a retry after a failure, or a job BullMQ re-delivered because
 *   its worker died mid-run) is owed its run: with no slot free it is not skipped but claims the next
 *   one (newer occurrences are skipped meanwhile) and waits in BullMQ's delayed set, asking every
 *   `slotWaitPollMs`. An attempt lost with its worker counts as an attempt; when it was the last one
 *   allowed, the run fails saying so.
 * - A run whose lease is found given away on renewal (this process stalled longer than the lease TTL
 *   and another run took the slot or the group) is aborted through its signal with a `LeaseLostError`.
 * - Records: `running` → `succeeded` | `retrying` | `failed`; earlier attempts (failed or lost) are
 *   kept in `previousAttempts`, and a run that succeeded carries no `error`. `failed` and `skipped`
 *   are also emitted on the scheduler when it has `emit`.
 *
 * A scheduler whose partition count is not the one its deployment recorded (`BULLBEAT_PARTITIONS`) is
 * refused with a `ConfigError` naming both, before any job is taken; the first process of a deployment
 * records its count.
 *
 * Installs no signal handlers (the entry point in `workers/` does). Resolves once the workers exist;
 * `ready()` waits for their connections.
 */
export async function createWorker(
  manager: WorkerScheduler | object,
  options: CreateWorkerOptions = {},
): Promise<WorkerHandle> {
  const scheduler = workerSideOf(manager);
  const resolved = await resolveWorkerOptions(scheduler, options);
  const redis = withCommandTimeout(
    openRedis({ ...scheduler.connectionOptions(), lazyConnect: false }),
    resolved.commandTimeoutMs,
  );
  // BullMQ needs a client instance on a cluster (one per worker; closed with it)
  const bullClients: { disconnect(): void }[] = [];
  redis.on('error', (err) => resolved.logger.warn({ err }, 'redis connection error (worker runtime)'));
  // Leases and records are found by hashing a schedule id over the deployment's partition count: with
  // another one this worker would run jobs outside every overlap rule, its records read by no one; data in
  // a newer format than this release knows would be misread (data-format.ts).
  // A queue another deployment's workers serve: each would take the other's jobs (queue-owner.ts).
  const holdQueues = () =>
    Promise.all(
      resolved.queues.map((q) => holdQueue(redis, bullPrefixOf(scheduler, q), q, scheduler.prefix)),
    );
  const k = keys(scheduler.prefix, scheduler.partitions ?? 1);
  try {
    await checkDeployment(redis, k, true);
    await holdQueues();
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const shutdown = new AbortController();
  const events = new EventEmitter();
  const byQueue = new Map<string, Worker>();
  // The next in line for a slot that just freed waits in the delayed set: start it now.
  const promote = async (queue: string, jobId: string) => {
    const worker = byQueue.get(queue);
    const job = worker ? await Job.fromId(worker, jobId) : undefined;
    if (job && (await job.isDelayed())) await job.promote();
  };
  // Jobs waiting on a queue: a burst still being started, behind which run outcomes are written.
  const waiting = (queues: readonly string[]) =>
    jobsWaiting(
      redis,
      queues.flatMap((q) => {
        const wait = byQueue.get(q)?.keys.wait;
        return wait ? [wait] : [];
      }),
    );
  let active = 0;
  // A queue is in a burst (or a backlog) for this worker while BullMQ's last fetch on it found a job
  // (it says 'drained' when one finds none) and another run is under way beside the one that ends:
  // there run outcomes are written behind (`RunRecorder.holdFinish`).
  const onQueue = new Map<string, { active: number; drained: boolean }>();
  const inBurst = (queue: string) => {
    const on = onQueue.get(queue);
    return on !== undefined && !on.drained && on.active >= 2;
  };
  const runner = new OccurrenceRunner(scheduler, redis, resolved, shutdown.signal, events, {
    promote,
    waiting,
    inBurst,
  });
  if (resolved.queues.length === 0) {
    resolved.logger.warn('no handler registered: this worker serves no queue (pass `queues` to serve some)');
  }

  const workers = resolved.queues.map((queue) => {
    const limit = resolved.limiters[queue];
    const target = scheduler.connectionOptions();
    const connection = bullConnection(target);
    if (connection !== target) bullClients.push(connection as { disconnect(): void });
    const prefix = bullPrefixOf(scheduler, queue);
    // runs under way on this queue here, and whether BullMQ's last fetch on it found none
    const on = { active: 0, drained: true };
    onQueue.set(queue, on);
    const worker = new RuntimeWorker(
      queue,
      async (job, token) => {
        active++;
        on.active++;
        on.drained = false;
        try {
          return await traceRun(job, () => runner.process(job, token));
        } finally {
          active--;
          on.active--;
        }
      },
      {
        ...resolved.bullmq,
        ...(prefix ? { prefix } : {}),
        connection: connection as ConnectionOptions,
        concurrency: resolved.concurrency,
        ...(limit ? { limiter: { max: limit.max, duration: limit.durationMs } } : {}),
      },
      runner,
    );
    worker.on('error', (err) => resolved.logger.error({ err, queue }, 'worker error'));
    worker.on('drained', () => {
      on.drained = true;
    });
    // a job failed before any processor saw it (stalled too often): its run is recorded here
    worker.on('failed', (job, err) => {
      if (!job || !failedBeforeProcessing(job, err)) return;
      runner.recordFailedBeforeProcessing(job, err).catch((error: unknown) => {
        resolved.logger.error(
          { err: error, queue, jobId: job.id },
          'could not record a job failed by BullMQ',
        );
      });
    });
    byQueue.set(queue, worker);
    return worker;
  });

  // this deployment holds its queues while this worker lives
  const holding = setInterval(() => {
    holdQueues().catch((err: unknown) => resolved.logger.error({ err }, 'holding the queues failed'));
  }, QUEUE_HOLD_MS / 3);
  holding.unref();
  // While it runs, the runtime says which queues it consumes: the scheduler's follower of plain
  // Workers' outcomes then reads none of their records back (this runtime writes them).
  const announce = () =>
    announceRuntimeQueues(redis, k, resolved.queues).catch((err: unknown) =>
      resolved.logger.warn({ err }, 'could not announce the queues this worker consumes'),
    );
  await announce();
  const announcer = setInterval(announce, RUNTIME_ANNOUNCE_MS);
  announcer.unref();

  let closing: Promise<void> | undefined;
  const close = (closeOptions: { graceMs?: number } = {}): Promise<void> => {
    closing ??= (async () => {
      clearInterval(holding);
      const graceMs = closeOptions.graceMs ?? resolved.shutdownGraceMs;
      resolved.logger.info({ running: active, graceMs }, 'worker shutting down');
      const drained = Promise.all(workers.map((w) => w.close()));
      let timer: NodeJS.Timeout | undefined;
      const overdue = new Promise<'overdue'>((resolve) => {
        timer = setTimeout(() => resolve('overdue'), graceMs);
      });
      const first = await Promise.race([drained.then(() => 'drained' as const), overdue]);
      clearTimeout(timer);
      if (first === 'overdue') {
        resolved.logger.warn({ running: active, graceMs }, 'grace period over: aborting running jobs');
        shutdown.abort(new WorkerShutdownError(graceMs));
        // Aborted runs fail at once; give their records and leases a moment, then force the close.
        const forced = new Promise<'forced'>((resolve) => {
          timer = setTimeout(() => resolve('forced'), ABORT_SETTLE_MS);
        });
        if ((await Promise.race([drained, forced])) === 'forced') {
          resolved.logger.error('workers did not close after the abort; forcing');
          await Promise.all(workers.map((w) => w.close(true)));
        }
        clearTimeout(timer);
      }
      clearInterval(announcer);
      await runner.close();
      // stopped, not dead: the queues are free for whatever is started next on them
      await Promise.all(
        resolved.queues.map((q) => releaseQueue(redis, bullPrefixOf(scheduler, q), q, scheduler.prefix)),
      ).catch((err: unknown) => resolved.logger.warn({ err }, 'releasing the queues failed'));
      await redis.quit().catch(() => redis.disconnect());
      for (const c of bullClients) c.disconnect();
      resolved.logger.info('worker closed');
    })();
    return closing;
  };

  return {
    queues: resolved.queues,
    workers,
    ready: async () => {
      await Promise.all(workers.map((w) => w.waitUntilReady()));
    },
    running: () => active,
    events,
    close,
    [Symbol.asyncDispose]: () => close(),
  };
}

/** Apply every default once, at the boundary. */
export async function resolveWorkerOptions(
  scheduler: WorkerScheduler,
  options: CreateWorkerOptions,
): Promise<ResolvedWorkerOptions> {
  const tuning = resolveWorkerTuning(options);
  const queues = options.queues?.length ? [...options.queues] : await handledQueues(scheduler);
  const leaseTtlMs = options.leaseTtlMs ?? 30_000;
  const logger =
    options.logger ?? scheduler.logger ?? pino({ level: 'info', hooks: { logMethod: uniqueKeys } });
  if (tuning.deprecated.length > 0) logger.warn(deprecatedTuningWarning('worker', tuning.deprecated));
  const limiters: Record<string, { max: number; durationMs: number }> = {};
  for (const queue of queues) {
    const limit = options.limiters?.[queue] ?? options.limiter;
    if (limit) limiters[queue] = limit;
  }
  return {
    queues: [...new Set(queues)],
    concurrency: options.concurrency ?? 10,
    shutdownGraceMs: options.shutdownGraceMs ?? 30_000,
    limiters,
    leaseTtlMs,
    leaseRenewMs: tuning.values.leaseRenewMs ?? Math.max(1, Math.floor(leaseTtlMs / 3)),
    groupPollMs: tuning.values.groupPollMs,
    exclusionWaitMs: options.exclusionWaitMs ?? 60_000,
    slotWaitPollMs: tuning.values.slotWaitPollMs,
    recordLagMs: tuning.values.recordLagMs,
    outcomeHoldMs: tuning.values.outcomeHoldMs,
    historyLimit: options.historyLimit ?? 100,
    auditLimit: scheduler.options?.auditLimit ?? DEFAULT_AUDIT.limit,
    commandTimeoutMs: commandTimeoutOf(options.commandTimeoutMs ?? scheduler.options?.commandTimeoutMs),
    logger,
    clock: options.clock ?? systemClock,
    bullmq: options.bullmq ?? {},
  };
}

/** The worker's tuning, checked (`ConfigError` naming `tuning.<knob>`), defaults applied where they are fixed. */
export interface ResolvedWorkerTuning {
  /** Undefined: `leaseTtlMs / 3`, which is not tuning. */
  values: {
    leaseRenewMs: number | undefined;
    groupPollMs: number;
    slotWaitPollMs: number;
    recordLagMs: number;
    outcomeHoldMs: number;
  };
  /** The top-level names given (deprecated aliases), for the one warning. */
  deprecated: readonly string[];
}

/**
 * A worker's `tuning` (and the deprecated top-level names) checked once: each knob an integer of ms
 * at or above its minimum, refused naming it (`tuning.groupPollMs: must be an integer >= 1 (ms), got 0`).
 * The CLI checks `--tuning` / `BULLBEAT_TUNING` with it before anything starts.
 */
export function resolveWorkerTuning(options: CreateWorkerOptions): ResolvedWorkerTuning {
  const tuning = gatherTuning<WorkerTuning>(options, WORKER_TUNING_KEYS, (field, reason) => {
    throw new ConfigError(field, reason);
  });
  const t = tuning.values;
  const ms = (key: keyof WorkerTuning, min = 1): number | undefined => {
    const v = t[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      throw new ConfigError(
        tuning.fieldOf(key),
        `must be an integer >= ${min} (ms), got ${JSON.stringify(v)}`,
      );
    }
    return v;
  };
  return {
    values: {
      leaseRenewMs: ms('leaseRenewMs'),
      groupPollMs: ms('groupPollMs') ?? 100,
      slotWaitPollMs: ms('slotWaitPollMs') ?? 1000,
      recordLagMs: ms('recordLagMs', 0) ?? 1000, // 0: the start check writes the record
      outcomeHoldMs: ms('outcomeHoldMs', 0) ?? 0, // 0: an outcome is written before its job completes
    },
    deprecated: tuning.deprecated,
  };
}

/** BullMQ's key prefix of one of the scheduler's queues (undefined: BullMQ's own, `bull`). */
function bullPrefixOf(scheduler: WorkerScheduler, queue: string): string | undefined {
  return scheduler.queuePrefixFor?.(queue) ?? scheduler.queuePrefix;
}

/** `commandTimeoutMs`, checked: a whole number of ms, `0` for none. */
function commandTimeoutOf(v: number | undefined): number {
  if (v === undefined) return DEFAULT_COMMAND_TIMEOUT_MS;
  if (!Number.isInteger(v) || v < 0) {
    throw new ScheduleOptionsError(
      undefined,
      'commandTimeoutMs',
      `must be an integer >= 0, got ${String(v)}`,
    );
  }
  return v;
}
