import { performance } from 'node:perf_hooks';

/**
 * How much slower than the monotonic clock the estimate runs: 1 ms per s (1,000 ppm), twice the
 * fastest NTP slew, so a Redis clock running slower than this process's never falls behind it.
 */
const SLEW = 0.001;
/** A reading this far below the estimate is a reply handled late, not Redis's clock going back (ms). */
const KEPT_LEAD_MS = 5;

/**
 * Redis's clock as seen from this process, for enqueueing occurrences claimed ahead at their time:
 * Redis `TIME` read inside a script, paired with the monotonic clock when the reply is handled. Each
 * reading is a lower bound (the reply is always handled after Redis read it), and the estimate
 * advances 0.1 % slower than the monotonic clock, so it never runs ahead of Redis.
 *
 * A reading up to KEPT_LEAD_MS below the estimate is taken for a reply handled late, and the
 * estimate is kept; a reading further below replaces it (Redis's clock went back, as after a
 * failover to another host); a reading above it replaces it.
 */
export class RedisClock {
  /** The estimate is `base` at monotonic time `baseAt` (-1: no reading yet). */
  private base = 0;
  private baseAt = -1;

  constructor(private readonly monotonic: () => number = () => performance.now()) {}

  /** Redis time now (ms), as estimated (before the first reading: the monotonic clock, meaningless). */
  now(): number {
    const at = this.monotonic();
    return this.baseAt < 0 ? at : this.base + (at - this.baseAt) * (1 - SLEW);
  }

  /** Learn from a Redis TIME reading (ms) whose reply is being handled now. */
  sync(redisMs: number): void {
    const at = this.monotonic();
    const estimate = this.now();
    const lateReply = this.baseAt >= 0 && redisMs < estimate && estimate - redisMs < KEPT_LEAD_MS;
    this.base = lateReply ? estimate : redisMs;
    this.baseAt = at;
  }

  /** Monotonic ms until Redis's clock, as estimated, reaches `redisMs` (at least that long). */
  until(redisMs: number): number {
    return (redisMs - this.now()) / (1 - SLEW);
  }
}
