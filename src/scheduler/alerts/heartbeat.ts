import type { Logger } from 'pino';
import type { AlertStore } from '../../store/index.js';
import type { HeartbeatConfig } from '../contract/index.js';
import { type AlertTimers, processTimers, repeatEvery } from './alert-timers.js';

/**
 * The dead man's switch: once per period, the one live scheduler replica that claims the period in
 * Redis (`SET NX PX`, a key per period) sends a GET to the heartbeat URL. While every replica is
 * down, or Redis unreachable, nothing is sent and the watchdog behind the URL alerts; the beats resume
 * with the first replica back. Each replica looks four times per period (at most every 5 s), so a
 * period's beat goes out while any replica lives.
 */
export class Heartbeat {
  private stopTimer: (() => void) | undefined;
  private beating: Promise<void> | undefined;
  private lastPeriod = -1;
  /** Beats this replica sent (for tests and metrics). */
  sent = 0;

  constructor(
    private readonly store: AlertStore,
    private readonly config: HeartbeatConfig,
    private readonly healthy: () => boolean,
    private readonly replicaId: string,
    private readonly logger: Logger,
    private readonly timers: AlertTimers = processTimers,
  ) {}

  start(): void {
    if (this.stopTimer) return;
    const every = Math.max(100, Math.min(5000, Math.floor(this.config.everyMs / 4)));
    this.stopTimer = repeatEvery(this.timers, every, () => {
      this.beating ??= this.beat()
        .catch((err: unknown) => this.logger.warn({ err }, 'bullbeat: heartbeat failed'))
        .finally(() => {
          this.beating = undefined;
        });
    });
  }

  async stop(): Promise<void> {
    this.stopTimer?.();
    this.stopTimer = undefined;
    await this.beating;
  }

  private async beat(): Promise<void> {
    if (!this.healthy()) return;
    const now = await this.store.time();
    const period = Math.floor(now / this.config.everyMs);
    if (period === this.lastPeriod) return;
    this.lastPeriod = period;
    if (!(await this.store.claimBeat(period, this.config.everyMs * 2, this.replicaId))) return;
    const res = await fetch(this.config.url, {
      method: 'GET',
      // the period (Redis time / period): a watchdog (or a test) sees one beat per period
      headers: { 'user-agent': 'bullbeat-heartbeat', 'x-bullbeat-period': String(period) },
      signal: AbortSignal.timeout(Math.min(10_000, this.config.everyMs)),
    });
    await res.arrayBuffer().catch(() => undefined);
    this.sent++;
    if (!res.ok) this.logger.warn({ status: res.status }, 'bullbeat: heartbeat answered with an error');
  }
}
