import type { CronOptions } from '../cron/cron-options.js';

/** `timezone`, `dayMatch` and `dst` are the cron engine's own options (see `CronOptions`). */
export interface CronTriggerOptions extends CronOptions {
  /**
   * A random delay in `[0, jitter]` seconds added to each cron instant (a random time inside a
   * window: `0 9 * * *` with `jitter: 7200` runs once between 09:00 and 11:00). The next occurrence
   * is still counted from the cron instant, not from the delayed run. Ignored inside a compound AND.
   * Default: `0`.
   */
  jitter?: number;
  /**
   * Source of randomness for the jitter, returning a number in `[0, 1)`. For tests; never
   * serialized. Default: `Math.random`.
   */
  random?: () => number;
}
