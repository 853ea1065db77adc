import { type FireClock, monotonicClock } from './fire-clock.js';

/** The least time ahead of its fire time an occurrence is claimed, when claims are paced (ms). */
const MIN_LEAD_MS = 5;

/**
 * When the next claim starts: one timer, always armed for the earliest reason to claim, never longer
 * than `maxSleepMs`, and paced so that claims come at most every half horizon (`claimAheadMs / 2`).
 */
export class ClaimTimer {
  private timer: unknown;
  /** The clock's `now()` at which the timer is due, when armed. */
  private armedAt: number | undefined;
  /** Redis time (ms) of the latest claim: claims are paced from it. */
  private lastClaimAt = Number.NEGATIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly options: { claimAheadMs: number; maxSleepMs: number },
    /** Start a claim; `lateMs`: how late the timer went off. */
    private readonly onClaim: (lateMs: number) => void,
    /** How much further than `claimAheadMs` claims reach now (ms; see FireLoop's `aheadMs`). */
    private readonly extraAheadMs: () => number = () => 0,
    private readonly clock: FireClock = monotonicClock,
  ) {}

  /** A claim was made at Redis time `now`. */
  claimed(now: number): void {
    this.lastClaimAt = Math.max(this.lastClaimAt, now);
  }

  /** Arm the timer for `delayMs` from now, unless it is already armed for earlier. */
  arm(delayMs: number): void {
    if (this.stopped) return;
    const delay = Math.max(0, Math.min(delayMs, this.options.maxSleepMs));
    const target = this.clock.now() + delay;
    if (this.timer && this.armedAt !== undefined && this.armedAt <= target) return;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.armedAt = target;
    this.timer = this.clock.setTimeout(() => {
      const late = this.armedAt === undefined ? 0 : this.clock.now() - this.armedAt;
      this.timer = undefined;
      this.armedAt = undefined;
      this.onClaim(late);
    }, delay);
  }

  /**
   * Arm the next claim for an occurrence due at `due` (Redis ms): once it is within the horizon
   * (`claimAheadMs` plus the extension the fire loop learnt from its recent claims), but
   * no sooner than half a horizon after the last claim, unless that would leave it less than
   * MIN_LEAD_MS between claim and fire time.
   */
  armFor(due: number, now: number): void {
    const ahead = this.options.claimAheadMs + this.extraAheadMs();
    const lead = Math.min(MIN_LEAD_MS, ahead / 2);
    const at = Math.max(due - ahead, Math.min(this.lastClaimAt + ahead / 2, due - lead));
    this.arm(at - now);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
