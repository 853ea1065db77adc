import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { handledPairs } from '../queue/handled-queues.js';
import type { SchedulerManager } from '../scheduler/index.js';
import { DeliverySender, IncidentWatch, internalsOf } from '../scheduler/index.js';
import { AlertStore, openRedis, ScheduleStore, withCommandTimeout } from '../store/index.js';
import type { FleetMembership } from './fleet-options.js';
import { FleetReader, joinFleet } from './fleet-registry.js';
import { type MetricsServer, serveMetrics } from './metrics-server.js';
import { NoSchedulerWatch } from './no-scheduler-watch.js';
import { SchedulerMetrics } from './scheduler-metrics.js';
import { WorkerMetrics, type WorkerMetricsSource } from './worker-metrics.js';

/** Options of `startProcessOps`. */
export interface ProcessOpsOptions {
  /** The manager of this process (its prefix, connection and handlers). */
  scheduler: SchedulerManager;
  /** True when this process runs the scheduler replica (`scheduler.start()` in the scheduler role). */
  replica: boolean;
  /** The worker this process runs, if any (`createWorker`'s handle). */
  worker?: WorkerMetricsSource;
  /** Serve `/metrics`, `/healthz` and `/readyz` on this port. Default: no server (metrics still collected). */
  metricsPort?: number;
  /** Address of the metrics server. Default: `0.0.0.0`. */
  metricsHost?: string;
  /** Fleet heartbeat (ms). Default: 5000. */
  heartbeatMs?: number;
  /** Schedule ids with a `schedule` label of their own (see `ProcessMetricsOptions`). Default: none. */
  scheduleLabels?: readonly string[];
  /** bullbeat's version, shown in the fleet. */
  version?: string;
  logger?: Logger;
}

/** A process's operations side: its fleet memberships, metrics and metrics server. */
export interface ProcessOps {
  readonly registry: Registry;
  /** The metrics server, when a port was given. */
  readonly server: MetricsServer | undefined;
  /** Leave the fleet, stop the server, detach the metrics. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * What every long-running bullbeat process adds to its work: it joins the fleet registry (one member
 * per role: scheduler replica, worker), collects its own Prometheus metrics (prom-client's default
 * process metrics included, in a registry of its own), and serves them with `/healthz` and `/readyz`
 * when given a port. `/readyz` is ready while the replica runs, the workers run, and the fleet
 * heartbeats reach Redis.
 */
export async function startProcessOps(options: ProcessOpsOptions): Promise<ProcessOps> {
  const { scheduler, worker } = options;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metricOptions = { ...(options.scheduleLabels && { scheduleLabels: options.scheduleLabels }) };
  const schedulerMetrics = options.replica
    ? new SchedulerMetrics(registry, scheduler, metricOptions)
    : undefined;
  const workerMetrics = worker ? new WorkerMetrics(registry, worker, metricOptions) : undefined;
  const memberships: FleetMembership[] = [];
  let server: MetricsServer | undefined;
  let alerts: { stop(): Promise<void> } | undefined;
  const stop = async () => {
    schedulerMetrics?.close();
    workerMetrics?.close();
    await alerts?.stop();
    alerts = undefined;
    await Promise.all(memberships.splice(0).map((m) => m.leave()));
    await server?.close();
  };
  try {
    const common = {
      prefix: internalsOf(scheduler).prefix,
      connection: internalsOf(scheduler).connectionOptions(),
      ...(options.heartbeatMs !== undefined && { heartbeatMs: options.heartbeatMs }),
      ...(options.version !== undefined && { version: options.version }),
      ...(options.logger && { logger: options.logger }),
    };
    if (options.replica) memberships.push(await joinFleet({ ...common, role: 'scheduler' }));
    if (worker) {
      memberships.push(
        await joinFleet({
          ...common,
          role: 'worker',
          queues: worker.queues,
          handlers: internalsOf(scheduler).handlerNames(),
          handles: await handledPairs(internalsOf(scheduler), worker.queues),
        }),
      );
    }
    alerts = await watchAlerts(scheduler, options);
    if (options.metricsPort !== undefined) {
      server = await serveMetrics({
        port: options.metricsPort,
        ...(options.metricsHost !== undefined && { host: options.metricsHost }),
        registry,
        ready: async () => {
          if (options.replica && !scheduler.running) return 'the scheduler replica is not running';
          if (worker && !worker.workers.every((w) => w.isRunning())) return 'a queue worker is not running';
          for (const m of memberships) {
            const problem = m.problem();
            if (problem) return problem;
          }
          return null;
        },
      });
      options.logger?.info({ metrics: `${server.url}/metrics` }, 'bullbeat: metrics server listening');
    }
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    registry,
    get server() {
      return server;
    },
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
  };
}

/**
 * The alerts every process of the fleet keeps: the `no-scheduler` incident, watched from the fleet (a
 * replica resolves it by being alive). A process that is no replica also checks the schedules'
 * expectations (whichever process takes the turn, `IncidentWatch`) and delivers the outbox to the
 * notifiers it was given (`BULLBEAT_NOTIFIERS`): with every replica down or stalled, a worker is what
 * opens and delivers the incidents, a late occurrence never enqueued among them. On a Redis client of
 * their own, so that their reads never wait in line behind the runs' (run slots, outcomes).
 */
async function watchAlerts(
  scheduler: SchedulerManager,
  options: ProcessOpsOptions,
): Promise<{ stop(): Promise<void> }> {
  const internals = internalsOf(scheduler);
  const { alerts: configured, expect } = internals.options;
  const redis = withCommandTimeout(
    openRedis(internals.connectionOptions()),
    internals.options.commandTimeoutMs,
  );
  redis.on('error', () => undefined);
  const store = new AlertStore(redis, internals.prefix);
  const logger = options.logger ?? internals.logger;
  const own = configured.notifiers.map((n) => n.name);
  const parts: { start(): void; stop(): Promise<void> }[] = [
    new NoSchedulerWatch({
      fleet: new FleetReader(redis, internals.prefix),
      alerts: store,
      notifiers: own,
      notify: expect?.notify,
      logger,
    }),
  ];
  if (!options.replica) {
    const announced = await store.notifierNames().catch(() => [] as string[]);
    parts.push(
      new IncidentWatch({
        redis,
        keys: internals.keys,
        store: new ScheduleStore(redis, internals.keys, internals.options.historyLimit),
        alerts: store,
        defaults: expect,
        notifiers: expect?.notify ?? [...new Set([...own, ...announced])],
        queue: (q) => internals.queue(q),
        logger,
        replicaId: `${options.worker ? 'worker' : 'process'}:${hostname()}:${process.pid}`,
        onChange: (change) => internals.events.emit('incident', change),
      }),
    );
    if (configured.notifiers.length > 0) {
      parts.push(new DeliverySender(store, configured.notifiers, internals.prefix, logger));
    }
  }
  for (const p of parts) p.start();
  return {
    stop: async () => {
      await Promise.all(parts.map((p) => p.stop()));
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
