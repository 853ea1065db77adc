import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Keys, ScheduleStore, StoredExpectations } from '../../store/index.js';
import { AlertStore } from '../../store/index.js';
import type { ResolvedAlertOptions } from '../contract/index.js';
import type { AlertTimers } from './alert-timers.js';
import { DELIVERY_DEFAULTS, DeliverySender } from './delivery-sender.js';
import { Heartbeat } from './heartbeat.js';
import { IncidentWatch, type IncidentWatchDeps } from './incident-watch.js';

/** What a scheduler replica gives its alerts. */
export interface AlertServiceDeps {
  redis: Redis;
  prefix: string;
  keys: Keys;
  store: ScheduleStore;
  alerts: ResolvedAlertOptions;
  defaults: StoredExpectations | undefined;
  queue(name: string): Queue;
  logger: Logger;
  replicaId: string;
  /** True while the replica fires (the heartbeat is sent only then). */
  healthy(): boolean;
  onChange?: IncidentWatchDeps['onChange'];
  /** The timers of the watch, the sender and the heartbeat (default: the process's; a manual clock's in tests). */
  timers?: AlertTimers | undefined;
}

/**
 * A scheduler replica's alerts, beside (never on) its fire path: the expectations watch, the outbox's
 * deliveries to this replica's notifiers, and the heartbeat. The notifiers it has are announced in
 * Redis at start, so that a definition made elsewhere (the API, the CLI) can check the names it uses.
 */
export class AlertService {
  readonly store: AlertStore;
  readonly watch: IncidentWatch;
  readonly sender: DeliverySender;
  readonly heartbeat: Heartbeat | undefined;

  constructor(deps: AlertServiceDeps) {
    this.store = new AlertStore(deps.redis, deps.prefix);
    const names = deps.alerts.notifiers.map((n) => n.name);
    this.watch = new IncidentWatch({
      redis: deps.redis,
      keys: deps.keys,
      store: deps.store,
      alerts: this.store,
      defaults: deps.defaults,
      notifiers: deps.defaults?.notify ?? names,
      queue: (q) => deps.queue(q),
      logger: deps.logger,
      replicaId: deps.replicaId,
      timers: deps.timers,
      ...(deps.onChange && { onChange: deps.onChange }),
    });
    this.sender = new DeliverySender(
      this.store,
      deps.alerts.notifiers,
      deps.prefix,
      deps.logger,
      DELIVERY_DEFAULTS,
      deps.timers,
    );
    this.heartbeat = deps.alerts.heartbeat
      ? new Heartbeat(
          this.store,
          deps.alerts.heartbeat,
          deps.healthy,
          deps.replicaId,
          deps.logger,
          deps.timers,
        )
      : undefined;
    this.notifiers = deps.alerts.notifiers.map((n) => ({ name: n.name, kind: n.kind }));
  }

  private readonly notifiers: { name: string; kind: string }[];

  async start(): Promise<void> {
    await this.store.announceNotifiers(this.notifiers);
    this.watch.start();
    this.sender.start();
    this.heartbeat?.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.watch.stop(), this.sender.stop(), this.heartbeat?.stop()]);
  }
}
