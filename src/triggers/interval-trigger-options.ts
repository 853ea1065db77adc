export interface IntervalTriggerOptions {
  /**
   * A random delay in `[0, jitter]` seconds added to each planned fire time, to spread load. The next
   * planned time is still counted from the grid, so jitter never accumulates. Must be less than
   * `seconds`. Default: `0`.
   */
  jitter?: number;
  /**
   * An instant (epoch ms, or a `Date`) on the grid: the trigger fires at `anchor + k * period`.
   * Default: `0` (the Unix epoch, so `every(3600)` fires on the hour in UTC).
   */
  anchor?: number | Date;
  /**
   * Source of randomness for the jitter, returning a number in `[0, 1)`. For tests; never
   * serialized. Default: `Math.random`.
   */
  random?: () => number;
}
