import type { Logger } from 'pino';
import { LeaseLostError } from '../errors/lease-lost-error.js';
import { RunCancelledError } from '../errors/run-cancelled-error.js';
import type { LeaseStore } from '../store/index.js';

/** Renews a run's slot lease: `held`, `gone` (lapsed, maybe given away) or `cancelled` (asked to stop). */
export type SlotRenewal = () => Promise<'held' | 'gone' | 'cancelled'>;

/**
 * The leases one run holds (its schedule's slot, maybe its exclusion group, or its place in the
 * group's line), renewed together every `renewMs` until released. A lease found given away on
 * renewal (the worker stalled longer than the TTL and another run took it) stops the run (`stopRun`,
 * which aborts its signal) with a `LeaseLostError`; a slot lease found asked to stop (`overlap:
 * 'cancelOther'`, or `cancel()` from the cancel channel) stops it with a `RunCancelledError`. The
 * slot lease is given back by the run's finish script (`slotReturned()`); `releaseAll()` gives back
 * what is still held.
 */
export class HeldLeases {
  /** The group leases held beside the slot; made at the first (most runs take none). */
  private sets: Set<string> | undefined;
  private slot: { set: string; renew: SlotRenewal } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly store: LeaseStore,
    readonly leaseId: string,
    private readonly renewMs: number,
    private readonly logger: Logger,
    private readonly scheduleId: string,
    /** Stops the run (its signal), with a `LeaseLostError` or a `RunCancelledError`; called once. */
    private readonly stopRun: (reason: Error) => void,
  ) {}

  /** Renew the run slot lease in `set` (just taken) with `renew`. */
  holdSlot(set: string, renew: SlotRenewal): void {
    this.slot = { set, renew };
    this.arm();
  }

  /** The finish script gave the slot lease back: stop renewing it. */
  slotReturned(): void {
    this.slot = undefined;
  }

  /** Renew `set` from now on (an exclusion group, or a place in its line, was just taken in it). */
  add(set: string): void {
    (this.sets ??= new Set()).add(set);
    this.arm();
  }

  /** Stop the run: a newer occurrence asked (`overlap: 'cancelOther'`). */
  cancel(): void {
    this.stop(new RunCancelledError(this.scheduleId));
  }

  /**
   * Stop renewing and give every lease still held back; undefined when none is left to give back
   * and no renewal is under way (most runs: the finish script gave the slot back), so the run ends
   * without a wait.
   */
  releaseAll(): Promise<void> | undefined {
    clearInterval(this.timer);
    this.timer = undefined;
    if (!this.renewing && !this.slot && !this.sets?.size) return undefined;
    return this.giveBack();
  }

  private async giveBack(): Promise<void> {
    await this.renewing;
    const sets = this.sets ? [...this.sets] : [];
    if (this.slot) sets.push(this.slot.set);
    this.sets?.clear();
    this.slot = undefined;
    await Promise.all(sets.map((set) => this.store.release(set, this.leaseId)));
  }

  private arm(): void {
    this.timer ??= setInterval(() => {
      this.renewing ??= this.renewAll().finally(() => {
        this.renewing = undefined;
      });
    }, this.renewMs).unref();
  }

  private async renewAll(): Promise<void> {
    const slot = this.slot;
    if (slot) {
      try {
        const state = await slot.renew();
        if (state === 'cancelled') this.cancel();
        if (state === 'gone' && this.slot === slot) {
          this.slot = undefined;
          this.giveUp(slot.set);
        }
      } catch (err) {
        this.logger.warn({ err, set: slot.set }, 'lease renewal failed; will retry');
      }
    }
    for (const set of this.sets ?? []) {
      try {
        if (!(await this.store.renew(set, this.leaseId)) && this.sets?.has(set)) {
          this.sets.delete(set);
          this.giveUp(set);
        }
      } catch (err) {
        this.logger.warn({ err, set }, 'lease renewal failed; will retry');
      }
    }
  }

  private giveUp(set: string): void {
    this.logger.warn({ set, leaseId: this.leaseId }, 'lease given away before renewal; aborting the run');
    this.stop(new LeaseLostError(this.scheduleId, set));
  }

  private stop(reason: Error): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopRun(reason);
  }
}
