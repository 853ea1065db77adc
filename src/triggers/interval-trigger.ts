import { TriggerError } from '../errors/index.js';
import { type DueAware, type DueContext, earliestDue } from './earliest-due.js';
import { periodProblem, toEpochMs } from './instant-bounds.js';
import type { IntervalTriggerOptions } from './interval-trigger-options.js';
import { jitterOffset } from './jitter-offset.js';
import { show } from './show-value.js';
import type { IntervalTriggerJSON, SerializableTrigger } from './trigger.js';

/** The shortest period: one millisecond, the resolution of a fire time. */
const MIN_SECONDS = 0.001;

/**
 * Fires every `seconds` on a fixed grid `anchor + k * period` (period = `seconds` rounded to whole
 * milliseconds; under one millisecond is refused), so it never drifts: each planned time is computed from the grid, not from when the
 * previous run happened or how much jitter it got.
 *
 * - Never fired: the first grid point strictly after `now`.
 * - Fired at `lastFire`: the grid point after the one `lastFire` belongs to (`lastFire` may be up to
 *   `jitter` late, and `jitter < seconds`, so that point is always the one it was planned for).
 * - Plus a random offset in `[0, jitter]` seconds, in whole milliseconds.
 */
export class IntervalTrigger implements SerializableTrigger, DueAware {
  /** The period as given, in seconds. */
  readonly seconds: number;
  /** The maximum random delay, in seconds (0 = none). */
  readonly jitter: number;
  /** An instant on the grid (epoch ms). */
  readonly anchor: number;
  /** The period in whole milliseconds (>= 1). */
  readonly periodMs: number;
  /** The maximum random delay in whole milliseconds (< `periodMs`). */
  readonly jitterMs: number;
  readonly #random: () => number;

  constructor(seconds: number, options: IntervalTriggerOptions = {}) {
    const { jitter = 0, anchor = 0, random = Math.random } = options;
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) {
      throw new TriggerError(
        'IntervalTrigger',
        'seconds',
        `must be a finite number greater than 0, got ${show(seconds)}`,
      );
    }
    const tooLong = periodProblem(seconds, 0, true);
    if (tooLong !== undefined) throw new TriggerError('IntervalTrigger', 'seconds', tooLong);
    const periodMs = Math.round(seconds * 1000);
    // compared as given, not once rounded: 0.0005 s would round to 1 ms, twice what was asked
    if (seconds < MIN_SECONDS) {
      throw new TriggerError(
        'IntervalTrigger',
        'seconds',
        `must be at least 0.001 (one millisecond, the resolution of a fire time), got ${seconds}`,
      );
    }
    if (typeof jitter !== 'number' || !Number.isFinite(jitter) || jitter < 0) {
      throw new TriggerError(
        'IntervalTrigger',
        'jitter',
        `must be a finite number >= 0, got ${show(jitter)}`,
      );
    }
    const jitterMs = Math.round(jitter * 1000);
    if (jitter >= seconds || jitterMs >= periodMs) {
      throw new TriggerError(
        'IntervalTrigger',
        'jitter',
        `must be less than seconds (jitter ${jitter} >= seconds ${seconds}): ` +
          'a jittered run must land before the next planned one',
      );
    }
    const anchorMs = toEpochMs(anchor, 'IntervalTrigger', 'anchor', 'anchor');
    if (typeof random !== 'function') {
      throw new TriggerError('IntervalTrigger', 'random', `must be a function, got ${show(random)}`);
    }
    this.seconds = seconds;
    this.jitter = jitter;
    this.anchor = anchorMs;
    this.periodMs = periodMs;
    this.jitterMs = jitterMs;
    this.#random = random;
  }

  nextFire(lastFire: number | null, now: number): number {
    return this.plannedAfter(lastFire, now) + jitterOffset(this.jitterMs, this.#random);
  }

  /**
   * The planned (un-jittered) time of the next fire: the first grid point strictly after `lastFire`,
   * or strictly after `now` when it has never fired. A jittered `lastFire` lies less than one period
   * after its own grid point, so this is always the grid point after that one.
   */
  plannedAfter(lastFire: number | null, now: number): number {
    const t = lastFire ?? now;
    let offset = (t - this.anchor) % this.periodMs;
    if (offset < 0) offset += this.periodMs;
    return t - offset + this.periodMs;
  }

  /** Inside an AND an interval is due from its next fire time onward. */
  [earliestDue](x: number, ctx: DueContext): number {
    let next = ctx.memo.get(this);
    if (next == null) {
      next = this.nextFire(ctx.lastFire, ctx.now);
      ctx.memo.set(this, next);
    }
    return Math.max(x, next);
  }

  toJSON(): IntervalTriggerJSON {
    const json: IntervalTriggerJSON = { type: 'interval', seconds: this.seconds };
    if (this.jitter !== 0) json.jitter = this.jitter;
    if (this.anchor !== 0) json.anchor = this.anchor;
    return json;
  }
}
