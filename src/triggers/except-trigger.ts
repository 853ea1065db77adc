import { TimeZone } from '../cron/time-zone.js';
import { InvalidTimezoneError, TriggerError } from '../errors/index.js';
import { type DueAware, type DueContext, earliestDue, isDueAware } from './earliest-due.js';
import {
  compileExclusion,
  type ExceptEntry,
  type ExceptEntryJSON,
  type Exclusion,
  wallDay,
} from './exclusion.js';
import { show } from './show-value.js';
import { checkTimeBudget } from './time-budget.js';
import type { ExceptTriggerJSON, SerializableTrigger, Trigger, TriggerJSON } from './trigger.js';
import { triggerTimezone } from './trigger-timezone.js';

/**
 * How many excluded steps in a row (candidates, and the units or hours a cron entry's span was extended
 * over) one `nextFire` walks past before it gives up with a `TriggerError` (an exclusion that leaves
 * nothing: the schedule becomes errored, saying so).
 */
export const MAX_EXCLUDED_IN_A_ROW = 100_000;

export interface ExceptTriggerOptions {
  /**
   * The IANA zone the dates and cron expressions of `except` are read in. Default: the zone of the
   * wrapped trigger (a cron trigger's, or the first cron child's of a compound), else UTC.
   */
  timezone?: string;
}

/**
 * A trigger minus its exclusions (Temporal's calendar `skip`, Quartz's calendars): it fires when the
 * wrapped trigger does, except at the occurrences that an `except` entry excludes, which are passed
 * over as if the trigger had never planned them (not recorded, like any instant the trigger does not
 * fire at). Each entry is read in `timezone`:
 *
 * - `'2026-12-25'`: every occurrence whose wall-clock date is that day; `'2026-12-24..2026-12-26'`:
 *   each day of the inclusive range;
 * - a cron expression (`'* * * * 0,6'`, `'* 12-13 * * *'`): every occurrence whose minute matches
 *   it (to the minute: seconds are ignored; a six-field expression matches to the second);
 * - a trigger: every occurrence at an instant the trigger would also fire at (no jitter allowed).
 *
 * An exclusion applies to the instant the wrapped trigger gives (with its jitter, if any). A walk
 * that meets more than `MAX_EXCLUDED_IN_A_ROW` excluded candidates in a row throws a `TriggerError`
 * (field `except`): an exclusion that excludes everything makes the schedule errored, never a loop.
 */
export class ExceptTrigger implements SerializableTrigger, DueAware {
  readonly trigger: Trigger;
  readonly except: readonly ExceptEntry[];
  readonly timezone: string;
  readonly #exclusions: readonly Exclusion[];
  readonly #zone: TimeZone;
  readonly #zoneGiven: boolean;
  /** The entry that excluded the last instant asked about (where `excludedUntil` looks first). */
  #lastHit = 0;
  /** An entry excludes every instant: `nextFire` says so at once. */
  readonly #excludesAll: boolean;
  /** The steps the span `excludedUntil` last found took (see `Exclusion.steps`). */
  #steps = 1;

  constructor(trigger: Trigger, except: readonly ExceptEntry[], options: ExceptTriggerOptions = {}) {
    if (typeof trigger !== 'object' || trigger === null || typeof trigger.nextFire !== 'function') {
      throw new TriggerError('ExceptTrigger', 'trigger', `must be a trigger, got ${show(trigger)}`);
    }
    if (!Array.isArray(except)) {
      throw new TriggerError(
        'ExceptTrigger',
        'except',
        `must be an array of dates, cron expressions or triggers, got ${show(except)}`,
      );
    }
    const given = options.timezone;
    if (given !== undefined) {
      if (typeof given !== 'string') {
        throw new TriggerError('ExceptTrigger', 'timezone', `must be an IANA zone name, got ${show(given)}`);
      }
      try {
        TimeZone.of(given);
      } catch (err) {
        if (err instanceof InvalidTimezoneError) {
          throw new TriggerError('ExceptTrigger', 'timezone', err.message, { cause: err });
        }
        throw err;
      }
    }
    this.trigger = trigger;
    this.timezone = given ?? zoneOfTrigger(trigger);
    this.#zone = TimeZone.of(this.timezone);
    this.#zoneGiven = given !== undefined && given !== zoneOfTrigger(trigger);
    this.except = Object.freeze([...except]);
    this.#exclusions = this.except.map((e, i) => compileExclusion(e, this.timezone, i));
    this.#excludesAll = this.#exclusions.some((e) => e.always === true);
  }

  /**
   * The last instant of an excluded span holding `t` (that of the first entry found excluding it), or
   * undefined. The search starts at the entry that excluded the previous instant and goes round: the
   * next excluded span of a long list in date order is usually the next entry.
   */
  excludedUntil(t: number): number | undefined {
    const list = this.#exclusions;
    const n = list.length;
    if (n === 0) return undefined;
    const day = wallDay(this.#zone, t);
    for (let k = 0; k < n; k++) {
      const i = (this.#lastHit + k) % n;
      const e = list[i]!;
      const span = e.spanEnd(t, day);
      if (span !== undefined) {
        this.#lastHit = i;
        this.#steps = e.steps ?? 1;
        return span;
      }
    }
    return undefined;
  }

  nextFire(lastFire: number | null, now: number): number | null {
    if (this.#excludesAll) return this.tooMany(lastFire ?? now);
    let last = lastFire;
    for (let i = 0, checked = 0; i < MAX_EXCLUDED_IN_A_ROW; checked++) {
      if ((checked & 63) === 63) checkTimeBudget('ExceptTrigger');
      const candidate = this.trigger.nextFire(last, now);
      if (candidate === null || typeof candidate !== 'number') return candidate;
      const end = this.excludedUntil(candidate);
      if (end === undefined) return candidate;
      last = Math.max(candidate, end);
      i += this.#steps;
    }
    return this.tooMany(lastFire ?? now);
  }

  /** Inside an AND: the wrapped trigger's earliest due instant that is not excluded. */
  [earliestDue](x: number, ctx: DueContext): number | null {
    if (this.#excludesAll) return this.tooMany(x);
    let from = x;
    for (let i = 0, checked = 0; i < MAX_EXCLUDED_IN_A_ROW; checked++) {
      if ((checked & 63) === 63) checkTimeBudget('ExceptTrigger');
      let due: number | null;
      if (isDueAware(this.trigger)) due = this.trigger[earliestDue](from, ctx);
      else due = this.trigger.nextFire(from - 1, ctx.now);
      if (due === null) return null;
      const end = this.excludedUntil(due);
      if (end === undefined) return due;
      from = Math.max(due, end) + 1;
      i += this.#steps;
    }
    return this.tooMany(x);
  }

  private tooMany(from: number): never {
    throw new TriggerError(
      'ExceptTrigger',
      'except',
      `excludes every occurrence: ${MAX_EXCLUDED_IN_A_ROW} excluded in a row after ${new Date(from).toISOString()}`,
    );
  }

  /** Throws a `TriggerError` when the wrapped trigger or an exclusion trigger cannot be serialized. */
  toJSON(): ExceptTriggerJSON {
    const inner = serialize(this.trigger, 'trigger');
    const except: ExceptEntryJSON[] = this.except.map((e, i) =>
      typeof e === 'string' ? e.trim() : serialize(e, `except[${i}]`),
    );
    return {
      type: 'except',
      trigger: inner,
      except,
      ...(this.#zoneGiven && { timezone: this.timezone }),
    };
  }
}

function serialize(t: Trigger, field: string): TriggerJSON {
  const toJSON = (t as Partial<SerializableTrigger>).toJSON;
  if (!isDueAware(t) || typeof toJSON !== 'function') {
    throw new TriggerError(
      'ExceptTrigger',
      field,
      'is a custom trigger: it can only be defined in code and cannot be serialized',
    );
  }
  return toJSON.call(t);
}

/** The zone of a built-in trigger (cron, or a compound's first cron child), else UTC. */
function zoneOfTrigger(t: Trigger): string {
  const toJSON = (t as Partial<SerializableTrigger>).toJSON;
  if (!isDueAware(t) || typeof toJSON !== 'function') return 'UTC';
  try {
    return triggerTimezone(toJSON.call(t)) ?? 'UTC';
  } catch {
    return 'UTC';
  }
}
