import type { DstPolicy } from '../cron/cron-options.js';
import { CronParser } from '../cron/index.js';
import { TriggerError } from '../errors/index.js';
import type { CronTriggerOptions } from './cron-trigger-options.js';
import { type DueAware, earliestDue } from './earliest-due.js';
import { periodProblem } from './instant-bounds.js';
import { jitterOffset } from './jitter-offset.js';
import { show } from './show-value.js';
import type { CronTriggerJSON, SerializableTrigger } from './trigger.js';

/**
 * Fires at the instants of a cron expression, read in `timezone` (default UTC), with the engine's
 * DST rules. Bad expressions throw `CronSyntaxError`, unknown zones `InvalidTimezoneError`.
 *
 * With `jitter`, each occurrence runs at its cron instant plus a random offset in `[0, jitter]`
 * seconds; the next one is counted from the cron instant that the last fire belongs to (the latest
 * instant at or before it), so `0 9 * * *` with `jitter: 7200` runs once a day between 09:00 and
 * 11:00. If `jitter` is longer than the gap between two cron instants, a run delayed past the next
 * instant makes that instant count as already run (the trigger has no memory but `lastFire`).
 */
export class CronTrigger implements SerializableTrigger, DueAware {
  readonly parser: CronParser;
  readonly expression: string;
  /**
   * The zone the expression is read in, as given (`'UTC'` by default). Kept as given rather than
   * `parser.timezone`, which is ICU's canonical name and may be an older alias (`Asia/Kolkata` reads
   * back as `Asia/Calcutta` on Node 20), so that JSON round-trips exactly.
   */
  readonly timezone: string;
  /** The maximum random delay, in seconds (0 = none). */
  readonly jitter: number;
  /** The maximum random delay in whole milliseconds. */
  readonly jitterMs: number;
  readonly #dayMatch: 'or' | 'and' | undefined;
  readonly #dst: DstPolicy | undefined;
  readonly #random: () => number;

  constructor(expression: string, options: CronTriggerOptions = {}) {
    const { timezone, dayMatch, dst, jitter = 0, random = Math.random } = options;
    if (typeof expression !== 'string') {
      throw new TriggerError('CronTrigger', 'expression', `must be a string, got ${show(expression)}`);
    }
    if (typeof jitter !== 'number' || !Number.isFinite(jitter) || jitter < 0) {
      throw new TriggerError('CronTrigger', 'jitter', `must be a finite number >= 0, got ${show(jitter)}`);
    }
    const tooLong = periodProblem(jitter, 0, false);
    if (tooLong !== undefined) throw new TriggerError('CronTrigger', 'jitter', tooLong);
    if (typeof random !== 'function') {
      throw new TriggerError('CronTrigger', 'random', `must be a function, got ${show(random)}`);
    }
    this.parser = new CronParser(expression, {
      ...(timezone !== undefined && { timezone }),
      ...(dayMatch !== undefined && { dayMatch }),
      ...(dst !== undefined && { dst }),
    });
    this.expression = expression;
    this.timezone = timezone ?? 'UTC';
    this.jitter = jitter;
    this.jitterMs = Math.round(jitter * 1000);
    this.#dayMatch = dayMatch;
    // one word kept: the earlier name `overlap` read as `repeated` (the parser refused a contradiction)
    this.#dst =
      dst === undefined
        ? undefined
        : {
            ...(dst.gap !== undefined && { gap: dst.gap }),
            ...((dst.repeated ?? dst.overlap) !== undefined && { repeated: dst.repeated ?? dst.overlap }),
          };
    this.#random = random;
  }

  nextFire(lastFire: number | null, now: number): number | null {
    if (this.jitterMs === 0) return this.parser.next(lastFire ?? now);
    const instant = lastFire === null ? this.parser.next(now) : this.instantAfter(lastFire);
    return instant === null ? null : instant + jitterOffset(this.jitterMs, this.#random);
  }

  /**
   * The cron instant after the one that `lastFire` belongs to (the latest instant at or before it):
   * the planned time of the next occurrence, before jitter.
   */
  instantAfter(lastFire: number): number | null {
    const base = this.parser.prev(lastFire + 1) ?? lastFire;
    const next = this.parser.next(base);
    // next(prev(t + 1)) is after t by construction; one more step keeps the contract if it is not.
    return next !== null && next <= lastFire ? this.parser.next(lastFire) : next;
  }

  /** Inside an AND a cron trigger is due exactly at its instants (jitter is ignored there). */
  [earliestDue](x: number): number | null {
    return this.parser.next(x - 1);
  }

  toJSON(): CronTriggerJSON {
    const json: CronTriggerJSON = { type: 'cron', expression: this.expression };
    if (this.timezone !== 'UTC') json.timezone = this.timezone;
    if (this.jitter !== 0) json.jitter = this.jitter;
    if (this.#dayMatch === 'and') json.dayMatch = 'and';
    const dst = this.#dst;
    if (dst?.gap !== undefined || dst?.repeated !== undefined) {
      json.dst = {
        ...(dst.gap !== undefined && { gap: dst.gap }),
        ...(dst.repeated !== undefined && { repeated: dst.repeated }),
      };
    }
    return json;
  }
}
