import type { Logger } from 'pino';
import type { AlertStore, TakenDelivery } from '../../store/index.js';
import type { NotifierConfig } from '../contract/index.js';
import { type AlertTimers, processTimers, repeatEvery } from './alert-timers.js';
import { notifierRequest } from './notifier-request.js';

/** How the outbox is worked: tuning knobs, with their defaults. */
export interface DeliveryTuning {
  /** How often the outbox is looked at (ms). */
  pollMs: number;
  /** A taken delivery is this replica's for so long; past it another replica may send it again. */
  leaseMs: number;
  /** The first retry's delay; each next one doubles it, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** A delivery not sent within this long after its incident's event is given up (`failed`). */
  retentionMs: number;
  /** One attempt's deadline. */
  timeoutMs: number;
}

export const DELIVERY_DEFAULTS: DeliveryTuning = {
  pollMs: 250,
  leaseMs: 15_000,
  backoffMs: 1000,
  maxBackoffMs: 60_000,
  retentionMs: 24 * 3_600_000,
  timeoutMs: 5000,
};

/**
 * A scheduler replica's share of the outbox: it takes the due deliveries for the notifiers it has,
 * POSTs each, and records the outcome (sent; retried with exponential backoff; given up after the
 * retention). At least once: a replica that dies mid-send leaves the delivery to be taken again when
 * its lease lapses, under the same delivery id. It never runs on the fire path: its own timer, its own
 * requests.
 */
export class DeliverySender {
  private stopTimer: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private readonly byName: Map<string, NotifierConfig>;

  constructor(
    private readonly store: AlertStore,
    notifiers: readonly NotifierConfig[],
    private readonly deployment: string,
    private readonly logger: Logger,
    private readonly tuning: DeliveryTuning = DELIVERY_DEFAULTS,
    private readonly timers: AlertTimers = processTimers,
  ) {
    this.byName = new Map(notifiers.map((n) => [n.name, n]));
  }

  start(): void {
    if (this.stopTimer || this.byName.size === 0) return;
    this.stopTimer = repeatEvery(this.timers, this.tuning.pollMs, () => {
      this.running ??= this.round()
        .catch((err: unknown) => this.logger.warn({ err }, 'bullbeat: alert deliveries: round failed'))
        .finally(() => {
          this.running = undefined;
        });
    });
  }

  async stop(): Promise<void> {
    this.stopTimer?.();
    this.stopTimer = undefined;
    await this.running;
  }

  /** One look at the outbox: every due delivery taken is attempted once. */
  async round(): Promise<void> {
    const taken = await this.store.take(this.tuning.leaseMs, 50, [...this.byName.keys()]);
    if (taken.length === 0) return;
    await Promise.all(taken.map((t) => this.attempt(t)));
  }

  private async attempt(t: TakenDelivery): Promise<void> {
    const d = t.delivery;
    const notifier = this.byName.get(d.notifier);
    const incident = await this.store.incident(d.incident);
    const now = await this.store.time();
    if (!notifier || !incident) {
      await this.store.done(t, 'failed', { ...d, status: 'failed', lastError: 'its incident is gone' });
      return;
    }
    const attempts = d.attempts + 1;
    let error: string | undefined;
    try {
      const req = notifierRequest(notifier, d, incident, this.deployment);
      const res = await fetch(req.url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal: AbortSignal.timeout(this.tuning.timeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) error = `HTTP ${res.status} ${res.statusText}`.trim();
    } catch (err) {
      error =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    }
    if (error === undefined) {
      await this.store.done(t, 'sent', { ...d, attempts, status: 'sent', sentAt: now });
      return;
    }
    if (now - d.createdAt >= this.tuning.retentionMs) {
      this.logger.error({ delivery: d.id, error }, 'bullbeat: alert delivery given up');
      await this.store.done(t, 'failed', { ...d, attempts, status: 'failed', lastError: error });
      return;
    }
    const delay = Math.min(this.tuning.maxBackoffMs, this.tuning.backoffMs * 2 ** (attempts - 1));
    this.logger.warn(
      { delivery: d.id, error, attempts, retryInMs: delay },
      'bullbeat: alert delivery failed; retrying',
    );
    await this.store.done(
      t,
      'retry',
      { ...d, attempts, status: 'retrying', lastError: error, nextAt: now + delay },
      now + delay,
    );
  }
}
