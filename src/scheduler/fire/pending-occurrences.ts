import type { FireClock } from './fire-clock.js';
import { fireTime, type Item } from './fire-loop-types.js';
import type { RedisClock } from './redis-clock.js';

/**
 * Claimed occurrences waiting in this process for their fire time, ordered by it, behind one timer
 * that goes off when Redis's clock (as `RedisClock` bounds it from below) reaches the earliest. One
 * timer-driven enqueue is in flight at a time: what comes due meanwhile goes in the next, so under
 * load batches grow with Redis's latency instead of one small `addBulk` per millisecond.
 */
export class PendingOccurrences {
  private pending: Item[] = [];
  private fireTimer: unknown;
  /** The fire time (Redis ms) the fire timer is armed for. */
  private fireArmedFor: number | undefined;
  /** An enqueue of the fire timer is in flight; `tickAgain`: the timer went off meanwhile. */
  private ticking = false;
  private tickAgain = false;

  constructor(
    private readonly clock: RedisClock,
    private readonly timers: FireClock,
    /** Enqueue the items due; `release` lets the next timer-driven enqueue go (called once at least). */
    private readonly fire: (due: Item[], release: () => void) => void,
  ) {}

  get length(): number {
    return this.pending.length;
  }

  /** The schedules of the occurrences waiting. */
  ids(): string[] {
    return this.pending.map((i) => i.claim.id);
  }

  /** Wait for their fire times (kept sorted: claims come mostly in order). */
  add(later: readonly Item[]): void {
    if (later.length === 0) return;
    const from = this.pending.length;
    this.pending.push(...later);
    for (let i = Math.max(1, from); i < this.pending.length; i++) {
      if (fireTime(this.pending[i]!) < fireTime(this.pending[i - 1]!)) {
        this.pending.sort((a, b) => fireTime(a) - fireTime(b));
        break;
      }
    }
    this.armFire();
  }

  /** Take out the occurrences of a schedule (stopped): the ones taken. */
  drop(id: string): Item[] {
    const dropped = this.pending.filter((i) => i.claim.id === id);
    if (dropped.length > 0) this.pending = this.pending.filter((i) => i.claim.id !== id);
    return dropped;
  }

  /** Disarm the timer (at stop, once nothing waits). */
  clear(): void {
    if (this.fireTimer) this.timers.clearTimeout(this.fireTimer);
    this.fireTimer = undefined;
  }

  /** Arm the fire timer for the earliest pending occurrence. */
  private armFire(): void {
    const first = this.pending[0];
    if (!first) return;
    const at = fireTime(first);
    if (this.fireTimer && this.fireArmedFor !== undefined && this.fireArmedFor <= at) return;
    if (this.fireTimer) this.timers.clearTimeout(this.fireTimer);
    this.fireArmedFor = at;
    this.fireTimer = this.timers.setTimeout(
      () => this.fireDue(),
      Math.max(0, Math.ceil(this.clock.until(at))),
    );
  }

  /**
   * The fire timer: enqueue every pending occurrence whose time has come. While one such enqueue is in
   * flight, the next waits for it and takes all that came due meanwhile.
   */
  private fireDue(): void {
    this.fireTimer = undefined;
    this.fireArmedFor = undefined;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    const now = this.clock.now();
    let n = 0;
    while (n < this.pending.length && fireTime(this.pending[n]!) <= now) n++;
    if (n > 0) {
      this.ticking = true;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.ticking = false;
        if (this.tickAgain) {
          this.tickAgain = false;
          this.fireDue();
        }
      };
      this.fire(this.pending.splice(0, n), release);
    }
    this.armFire();
  }
}
