import type { Logger } from 'pino';
import type { LeaseStore } from './lease-store.js';

/**
 * The leases one run holds (its schedule's slot, maybe its exclusion group, or its place in the
 * group's line), renewed together every `renewMs` until released. A lease found lapsed on renewal
 * is logged: its slot may have been given to another run (the worker stalled longer than the TTL).
 */
export class HeldLeases {
  private readonly sets = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;

  constructor(
    private readonly store: LeaseStore,
    readonly leaseId: string,
    private readonly renewMs: number,
    private readonly logger: Logger,
  ) {}

  /** Renew `set` from now on (the lease was just taken in it). */
  add(set: string): void {
    this.sets.add(set);
    this.timer ??= setInterval(() => {
      this.renewing ??= this.renewAll().finally(() => {
        this.renewing = undefined;
      });
    }, this.renewMs).unref();
  }

  /** Stop renewing `set` and give its lease back. */
  async release(set: string): Promise<void> {
    this.sets.delete(set);
    await this.store.release(set, this.leaseId);
  }

  /** Stop renewing and give every lease back. */
  async releaseAll(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.renewing;
    const sets = [...this.sets];
    this.sets.clear();
    await Promise.all(sets.map((set) => this.store.release(set, this.leaseId)));
  }

  private async renewAll(): Promise<void> {
    for (const set of this.sets) {
      try {
        if (!(await this.store.renew(set, this.leaseId))) {
          this.logger.warn(
            { set, leaseId: this.leaseId },
            'lease lapsed before renewal; overlap not guaranteed',
          );
        }
      } catch (err) {
        this.logger.warn({ err, set }, 'lease renewal failed; will retry');
      }
    }
  }
}
