import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { SchedulerManager } from '../scheduler/index.js';
import { DeliverySender, IncidentWatch, internalsOf } from '../scheduler/index.js';
import { AlertStore, openRedis, ScheduleStore, withCommandTimeout } from '../store/index.js';
import { FleetReader } from './fleet-registry.js';
import { NoSchedulerWatch } from './no-scheduler-watch.js';

/**
 * Which process watches: a scheduler replica (its own `AlertService` checks the expectations and
 * delivers), a process that loaded the jobs module without being a replica (a worker), or the
 * dashboard (`bullbeat dashboard`: no jobs module).
 */
export type FleetAlertsRole = 'replica' | 'worker' | 'dashboard';

/** The alerts a process of the fleet keeps beside its work; `stop()` ends them. */
export interface FleetAlerts {
  stop(): Promise<void>;
}

/**
 * The alerts every long-running process keeps, so that the death of the others is still told:
 * - every role looks at the fleet's rows for the `no-scheduler` incident (a replica resolves it by being
 *   alive);
 * - a worker also takes turns checking the schedules' expectations (`IncidentWatch`): with every replica
 *   down or stalled, a worker is what opens the incidents, a late occurrence never enqueued among them;
 * - a worker and the dashboard deliver the outbox to the notifiers they were given (`--notifier`,
 *   `BULLBEAT_NOTIFIERS`; a replica delivers through its `AlertService`): the incidents of an outage go
 *   out while it lasts, even when the dashboard is the only process left.
 *
 * The dashboard does not check expectations: it loads no jobs module, so it does not know the
 * deployment's own `expect` (the manager's option, code's), and a check without it would resolve what the
 * replicas and workers open under it. Its `no-scheduler` incident tells the deployment's notifiers it
 * knows: its own and those the replicas announced.
 *
 * On a Redis client of their own, so that their reads never wait in line behind the runs' (run slots,
 * outcomes).
 */
export async function watchFleetAlerts(
  scheduler: SchedulerManager,
  role: FleetAlertsRole,
  logger?: Logger,
): Promise<FleetAlerts> {
  const internals = internalsOf(scheduler);
  const { alerts: configured, expect } = internals.options;
  const log = logger ?? internals.logger;
  const redis = withCommandTimeout(
    openRedis(internals.connectionOptions()),
    internals.options.commandTimeoutMs,
  );
  redis.on('error', () => undefined);
  const store = new AlertStore(redis, internals.prefix);
  const own = configured.notifiers.map((n) => n.name);
  const parts: { start(): void; stop(): Promise<void> }[] = [
    new NoSchedulerWatch({
      fleet: new FleetReader(redis, internals.prefix),
      alerts: store,
      notifiers: own,
      notify: expect?.notify,
      logger: log,
    }),
  ];
  if (role === 'worker') {
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
        logger: log,
        replicaId: `worker:${hostname()}:${process.pid}`,
        onChange: (change) => internals.events.emit('incident', change),
      }),
    );
  }
  if (role !== 'replica' && configured.notifiers.length > 0) {
    parts.push(new DeliverySender(store, configured.notifiers, internals.prefix, log));
  }
  for (const p of parts) p.start();
  let stopping: Promise<void> | undefined;
  return {
    stop: () => {
      stopping ??= (async () => {
        await Promise.all(parts.map((p) => p.stop()));
        await redis.quit().catch(() => redis.disconnect());
      })();
      return stopping;
    },
  };
}
