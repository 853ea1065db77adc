import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { handledPairs } from '../queue/handled-queues.js';
import type { SchedulerManager } from '../scheduler/index.js';
import { internalsOf } from '../scheduler/index.js';
import { type FleetAlerts, watchFleetAlerts } from './fleet-alerts.js';
import type { FleetMembership } from './fleet-options.js';
import { joinFleet } from './fleet-registry.js';
import { type MetricsServer, serveMetrics } from './metrics-server.js';
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
  let alerts: FleetAlerts | undefined;
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
    alerts = await watchFleetAlerts(scheduler, options.replica ? 'replica' : 'worker', options.logger);
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
