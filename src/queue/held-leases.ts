import type { Logger } from 'pino';
import { LeaseLostError } from '../errors/lease-lost-error.js';
import type { LeaseStore } from '../store/lease-store.js';

/**
 * The leases one run holds (its schedule's slot, maybe its exclusion group, or its place in the
 * group's line), renewed together every `renewMs` until released. A lease found given away on
 * renewal (the worker stalled longer than the TTL and another run took it) aborts `lost` with a
 * `LeaseLostError`, which the runner passes on to the run's signal.
 */
export class HeldLeases {
  private readonly sets = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private readonly lostController = new AbortController();
  /** Aborted (with a `LeaseLostError`) when a held lease is found given away. */
  readonly lost: AbortSignal = this.lostController.signal;

  constructor(
    private readonly store: LeaseStore,
    readonly leaseId: string,
    private readonly renewMs: number,
    private readonly logger: Logger,
    private readonly scheduleId: string,
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
        if (!(await this.store.renew(set, this.leaseId)) && this.sets.has(set)) {
          this.sets.delete(set);
          this.logger.warn(
            { set, leaseId: this.leaseId },
            'lease given away before renewal; aborting the run',
          );
          if (!this.lost.aborted) this.lostController.abort(new LeaseLostError(this.scheduleId, set));
        }
      } catch (err) {
        this.logger.warn({ err, set }, 'lease renewal failed; will retry');
      }
    }
  }
}
