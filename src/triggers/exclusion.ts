import { daysFromCivil, MS_PER_DAY } from '../cron/calendar.js';
import { CronParser } from '../cron/cron-parser.js';
import { TimeZone } from '../cron/time-zone.js';
import { CronSyntaxError, InvalidTimezoneError, TriggerError } from '../errors/index.js';
import { MAX_INSTANT_MS } from './instant-bounds.js';
import { show } from './show-value.js';
import type { Trigger, TriggerJSON } from './trigger.js';

/**
 * One entry of an `except` list, as given: a calendar date `2026-12-25` or an inclusive range of
 * dates `2026-12-24..2026-12-26` (wall-clock dates in the zone), a cron expression (`* * * * 0,6`,
 * an occurrence is excluded when its minute in the zone matches it, or its second for a six-field
 * expression), or a trigger (an occurrence is excluded when the trigger would fire at that very
 * instant). In JSON a trigger is its JSON form.
 */
export type ExceptEntry = string | Trigger;

/** An `except` entry as stored (JSON). */
export type ExceptEntryJSON = string | TriggerJSON;

/** A compiled entry: whether it excludes an instant, and up to where. */
export interface Exclusion {
  /** The entry as given (a string, or the trigger). */
  readonly source: ExceptEntry;
  /**
   * The last instant (epoch ms) of the excluded span holding `t`, or undefined when `t` is not
   * excluded. The span is the rest of the date (range) for a date, the rest of the minute (second)
   * for a cron expression, `t` itself for a trigger. `day` is `t`'s wall-clock day number in the
   * zone (`wallDay`), computed once for every entry.
   */
  spanEnd(t: number, day: number): number | undefined;
  /**
   * The steps the last `spanEnd` took (1, or more for a cron entry that extended its span over a run
   * of matching units): a walk counts them against its bound, so a long span costs what its steps did.
   */
  readonly steps?: number;
  /** It excludes every instant (a cron entry `* * * * *`): nothing is left to walk to. */
  readonly always?: boolean;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The last year of `MAX_INSTANT_MS`, and its first day: a date entry may not reach it. An exclusion
 * to its end leaves no instant to fire at, and one inside it leaves next to none; refused where the
 * trigger is defined, naming the entry, rather than met as an out-of-range fire time that errors the
 * schedule after it was saved.
 */
const LAST_YEAR = new Date(MAX_INSTANT_MS).getUTCFullYear();
const LAST_YEAR_FIRST_DAY = daysFromCivil(LAST_YEAR, 1, 1);

/** Days since the epoch of a `YYYY-MM-DD` text, or undefined when it is not a real date. */
export function dayNumber(text: string): number | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return undefined;
  const days = daysFromCivil(y, mo, d);
  // 2026-02-30 would land on another day: refuse it rather than shift it.
  const back = new Date(days * MS_PER_DAY);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() + 1 !== mo || back.getUTCDate() !== d)
    return undefined;
  return days;
}

/** The wall-clock day number (days since 1970-01-01 in the zone) of an instant. */
export function wallDay(zone: TimeZone, t: number): number {
  return Math.floor((t + zone.offsetAt(t)) / MS_PER_DAY);
}

/** Dates `[first, last]` (day numbers) in `zone`: the rest of the range from `t`, found exactly. */
function dateExclusion(source: string, first: number, last: number, zone: TimeZone): Exclusion {
  return {
    source,
    spanEnd(t, day) {
      if (day < first || day > last) return undefined;
      // The instant just before the next local midnight; offsets change by hours at most, so search
      // a few candidates around it and keep the latest one still inside the range.
      const midnightWall = (last + 1) * MS_PER_DAY;
      let end = t;
      for (const guess of [
        midnightWall - zone.offsetAt(midnightWall) - 1,
        midnightWall - zone.offsetAt(midnightWall - MS_PER_DAY / 2) - 1,
      ]) {
        if (guess > end && wallDay(zone, guess) <= last && wallDay(zone, guess) >= first) {
          if (wallDay(zone, guess + 1) > last) end = guess;
        }
      }
      return end;
    },
  };
}

function cronExclusion(source: string, timezone: string, field: string): Exclusion {
  let parser: CronParser;
  try {
    parser = new CronParser(source, { timezone });
  } catch (err) {
    if (err instanceof CronSyntaxError || err instanceof InvalidTimezoneError) {
      throw new TriggerError('ExceptTrigger', field, err.message, { cause: err });
    }
    throw err;
  }
  const unit = parser.hasSeconds ? 1000 : 60_000;
  // `parser.next(from)` remembered: no unit in (from, next) matches, so every instant before `next` is
  // answered without a search (a walk asks about each candidate in turn, most of them not excluded)
  let from = Number.NaN;
  let next: number | null = null;
  const nextAfter = (x: number): number | null => {
    if (x >= from && (next === null || x < next)) return next;
    from = x;
    next = parser.next(x);
    return next;
  };
  // A matching unit of an expression that matches every minute of its hours (`* 12-13 * * *`) stands
  // for the rest of its wall-clock hour, unless the zone's offset changes inside it.
  const zone = TimeZone.of(timezone);
  const spanOf = (u: number): number => {
    if (!parser.wholeHours) return u + unit - 1;
    const offset = zone.offsetAt(u);
    const wall = u + offset;
    const end = wall - (((wall % HOUR_MS) + HOUR_MS) % HOUR_MS) + HOUR_MS - 1 - offset;
    return zone.offsetAt(end) === offset ? end : u + unit - 1;
  };
  const exclusion = {
    source,
    steps: 1,
    always: parser.always,
    spanEnd(t: number): number | undefined {
      exclusion.steps = 1;
      const start = Math.floor(t / unit) * unit;
      if (nextAfter(start - 1) !== start) return undefined;
      // the whole run of matching units (`* 12-13 * * *`: to 13:59), so that a walk steps over it at
      // once rather than unit by unit; at most MAX_RUN_STEPS steps per call
      let end = spanOf(start);
      while (exclusion.steps < MAX_RUN_STEPS && nextAfter(end) === end + 1) {
        end = spanOf(end + 1);
        exclusion.steps++;
      }
      return end;
    },
  };
  return exclusion;
}

/** How many further steps (units, or hours) one `spanEnd` of a cron entry extends its span by. */
const MAX_RUN_STEPS = 1440;
const HOUR_MS = 3_600_000;

function triggerExclusion(trigger: Trigger, field: string): Exclusion {
  const jitter = (trigger as { jitterMs?: unknown }).jitterMs;
  if (typeof jitter === 'number' && jitter > 0) {
    throw new TriggerError(
      'ExceptTrigger',
      field,
      'an exclusion trigger must have no jitter (its instants would be random)',
    );
  }
  return {
    source: trigger,
    spanEnd(t) {
      let at: number | null;
      try {
        at = trigger.nextFire(t - 1, t - 1);
      } catch {
        return undefined;
      }
      return at === t ? t : undefined;
    },
  };
}

/**
 * Compile one `except` entry, read in `timezone`. Throws a `TriggerError` (field `except[i]`) naming
 * what is wrong: a text that is neither a date, a date range nor a cron expression, an impossible
 * date, a reversed range, a bad expression, a jittered trigger.
 */
export function compileExclusion(entry: unknown, timezone: string, index: number): Exclusion {
  const field = `except[${index}]`;
  if (typeof entry === 'string') {
    const text = entry.trim();
    const range = text.split('..');
    if (range.length === 2 || DATE.test(text)) {
      const [a = '', b = a] = range.map((s) => s.trim());
      const first = dayNumber(a);
      const last = dayNumber(b);
      if (first === undefined || last === undefined) {
        throw new TriggerError(
          'ExceptTrigger',
          field,
          `${show(entry)} is not a real date (YYYY-MM-DD) or date range (YYYY-MM-DD..YYYY-MM-DD)`,
        );
      }
      if (last < first) {
        throw new TriggerError('ExceptTrigger', field, `${show(entry)}: the range ends before it starts`);
      }
      if (last >= LAST_YEAR_FIRST_DAY) {
        throw new TriggerError(
          'ExceptTrigger',
          field,
          `${show(entry)} reaches ${LAST_YEAR}, the last year a schedule may use (instants end at ${new Date(MAX_INSTANT_MS).toISOString()}): an exclusion there leaves no occurrence after it; end it in ${LAST_YEAR - 1} at the latest`,
        );
      }
      return dateExclusion(text, first, last, TimeZone.of(timezone));
    }
    if (text === '') {
      throw new TriggerError(
        'ExceptTrigger',
        field,
        'must be a date (YYYY-MM-DD), a date range (YYYY-MM-DD..YYYY-MM-DD), a cron expression or a trigger, got ""',
      );
    }
    return cronExclusion(text, timezone, field);
  }
  if (typeof entry === 'object' && entry !== null && typeof (entry as Trigger).nextFire === 'function') {
    return triggerExclusion(entry as Trigger, field);
  }
  throw new TriggerError(
    'ExceptTrigger',
    field,
    `must be a date (YYYY-MM-DD), a date range (YYYY-MM-DD..YYYY-MM-DD), a cron expression or a trigger, got ${show(entry)}`,
  );
}
