import { MS_PER_DAY } from '../cron/calendar.js';
import { TimeZone } from '../cron/time-zone.js';
import { InvalidTimezoneError, TriggerError } from '../errors/index.js';
import type { BusinessCalendar } from './business-calendar.js';
import { dayText } from './business-calendar.js';
import { wallDay } from './exclusion.js';
import { show } from './show-value.js';
import { checkTimeBudget } from './time-budget.js';
import type { SerializableTrigger, Trigger, TriggerJSON } from './trigger.js';
import { triggerTimezone } from './trigger-timezone.js';

/** What a schedule does with an occurrence on a day its calendar excludes. */
export const ON_EXCLUDED = ['skip', 'next', 'previous'] as const;
export type OnExcluded = (typeof ON_EXCLUDED)[number];

/** Where a calendar trigger finds the current version of its calendar, by name. */
export interface CalendarSource {
  calendar(name: string): BusinessCalendar | undefined;
}

/** A source that knows no calendar: a trigger decoded without one can be read, not planned. */
export const NO_CALENDARS: CalendarSource = { calendar: () => undefined };

/**
 * A trigger governed by a named calendar (`CalendarTrigger`): `onExcluded` is stored only when it is
 * not `skip`, `timezone` only when it differs from the wrapped trigger's own zone.
 */
export interface CalendarTriggerJSON {
  type: 'calendar';
  calendar: string;
  trigger: TriggerJSON;
  onExcluded?: 'next' | 'previous';
  timezone?: string;
}

/** Why an instant is not an occurrence: its day, excluded by this version of the calendar. */
export interface CalendarExclusion {
  calendar: string;
  version: number;
  /** The day and why (`2026-12-25 Christmas`, `2026-12-26 Saturday`). */
  reason: string;
}

/** Steps one walk takes at most before it gives up with a `TriggerError` (field `calendar`). */
export const MAX_CALENDAR_STEPS = 100_000;
/** How many days a roll looks for a business day before it gives the occurrence up. */
const ROLL_LIMIT_DAYS = 400;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The problem with a calendar name, or undefined. */
export function calendarNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `must be a calendar name (text), got ${show(name)}`;
  if (!NAME.test(name)) {
    return `must be 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit, got ${show(name)}`;
  }
  return undefined;
}

/**
 * A trigger whose occurrences follow a named calendar's business days (Quartz's calendars, with a
 * business-day roll), read in `timezone`:
 *
 * - `skip`: an occurrence on an excluded day is passed over;
 * - `next`: it moves to the same wall-clock time on the next included day;
 * - `previous`: to the same wall-clock time on the previous included day.
 *
 * Two occurrences rolled onto one instant fire once. The calendar is found by name in `source` each
 * time it is asked (the current version), so a change of the calendar reaches every schedule that
 * uses it at once. `next` and `previous` roll calendar instants: the wrapped trigger may not hold an
 * interval (whose next instant counts from the last one). An occurrence before the schedule's first
 * fire is not rolled into it.
 */
export class CalendarTrigger implements SerializableTrigger {
  readonly trigger: Trigger;
  readonly calendar: string;
  readonly onExcluded: OnExcluded;
  readonly timezone: string;
  readonly #zone: TimeZone;
  readonly #zoneGiven: boolean;
  readonly #source: CalendarSource;

  constructor(
    trigger: Trigger,
    calendar: string,
    options: { onExcluded?: OnExcluded; timezone?: string } = {},
    source: CalendarSource = NO_CALENDARS,
  ) {
    if (typeof trigger !== 'object' || trigger === null || typeof trigger.nextFire !== 'function') {
      throw new TriggerError('CalendarTrigger', 'trigger', `must be a trigger, got ${show(trigger)}`);
    }
    const nameProblem = calendarNameProblem(calendar);
    if (nameProblem) throw new TriggerError('CalendarTrigger', 'calendar', nameProblem);
    const onExcluded = options.onExcluded ?? 'skip';
    if (!(ON_EXCLUDED as readonly unknown[]).includes(onExcluded)) {
      throw new TriggerError(
        'CalendarTrigger',
        'onExcluded',
        `must be one of "skip", "next", "previous", got ${show(onExcluded)}`,
      );
    }
    const inner = innerJSON(trigger);
    if (onExcluded !== 'skip' && inner !== undefined && holdsInterval(inner)) {
      throw new TriggerError(
        'CalendarTrigger',
        'onExcluded',
        `"${onExcluded}" rolls calendar instants to another day: an interval trigger can only "skip"`,
      );
    }
    const given = options.timezone;
    const own = (inner && triggerTimezone(inner)) ?? 'UTC';
    try {
      this.#zone = TimeZone.of(given ?? own);
    } catch (err) {
      if (err instanceof InvalidTimezoneError) {
        throw new TriggerError('CalendarTrigger', 'timezone', err.message, { cause: err });
      }
      throw err;
    }
    this.trigger = trigger;
    this.calendar = calendar;
    this.onExcluded = onExcluded;
    this.timezone = given ?? own;
    this.#zoneGiven = given !== undefined && given !== own;
    this.#source = source;
  }

  /** The same trigger, reading its calendar from `source`. */
  withSource(source: CalendarSource): CalendarTrigger {
    return new CalendarTrigger(
      this.trigger,
      this.calendar,
      { onExcluded: this.onExcluded, ...(this.#zoneGiven && { timezone: this.timezone }) },
      source,
    );
  }

  /** The calendar's current version; throws a `TriggerError` (field `calendar`) when it is unknown here. */
  current(): BusinessCalendar {
    const cal = this.#source.calendar(this.calendar);
    if (!cal) {
      throw new TriggerError('CalendarTrigger', 'calendar', `unknown calendar "${this.calendar}"`);
    }
    return cal;
  }

  /** The wall-clock day (days since 1970-01-01 in the zone) of an instant. */
  dayOf(t: number): number {
    return wallDay(this.#zone, t);
  }

  /** Why the calendar excludes `t`'s day, or undefined when it is a day the schedule may fire on. */
  exclusion(t: number): CalendarExclusion | undefined {
    const cal = this.current();
    const reason = cal.whyExcluded(this.dayOf(t));
    return reason === undefined ? undefined : { calendar: cal.name, version: cal.version, reason };
  }

  nextFire(lastFire: number | null, now: number): number | null {
    const cal = this.current();
    if (this.onExcluded === 'skip') return this.#skipNext(cal, lastFire, now);
    if (this.onExcluded === 'next') return this.#rollNext(cal, lastFire, now);
    return this.#rollPrevious(cal, lastFire, now);
  }

  /**
   * A due time no later than the next occurrence under any version of the calendar that leaves this
   * one standing: the wrapped trigger's next instant for `skip` and `next` (a calendar only delays
   * those), the earlier of it and the occurrence for `previous`. The fire loop keeps this as the due
   * time and decides with the calendar it reads when it is claimed, so that a date removed from the
   * calendar after the due time was stored still fires.
   */
  wakeFire(lastFire: number | null, now: number): number | null {
    const raw = this.trigger.nextFire(lastFire, now);
    if (this.onExcluded !== 'previous') return raw;
    const next = this.nextFire(lastFire, now);
    if (raw === null) return next;
    return next === null ? raw : Math.min(raw, next);
  }

  /**
   * The run a stored due time stands for: the next occurrence with the calendar's current version
   * applied (an `onExcluded` roll included), found from `due`, the wake-up the fire loop keeps
   * (`wakeFire`), and `lastFire`; `due` itself when it cannot be computed (an unknown calendar).
   */
  appliedRun(due: number, lastFire: number | null, now: number): number | null {
    try {
      if (this.onExcluded === 'skip') return this.exclusion(due) ? this.nextFire(due, now) : due;
      return this.nextFire(lastFire ?? due - 1, now);
    } catch {
      return due;
    }
  }

  #skipNext(cal: BusinessCalendar, lastFire: number | null, now: number): number | null {
    let last = lastFire;
    for (let i = 0; i < MAX_CALENDAR_STEPS; i++) {
      if ((i & 63) === 63) checkTimeBudget('CalendarTrigger');
      const c = this.trigger.nextFire(last, now);
      if (c === null || typeof c !== 'number') return c;
      if (cal.includes(this.dayOf(c))) return c;
      last = c;
    }
    return this.#tooMany(lastFire ?? now);
  }

  /** The earliest rolled occurrence after `lastFire` (after `now` when it never fired). */
  #rollNext(cal: BusinessCalendar, lastFire: number | null, now: number): number | null {
    const after = lastFire ?? now;
    // instants of the excluded days just before `after`'s day may roll past `after`: walk from them
    let from = after;
    if (lastFire !== null) {
      let d = this.dayOf(after) - 1;
      for (let n = 0; n < ROLL_LIMIT_DAYS && !cal.includes(d); n++) d--;
      from = Math.min(after, this.#startOfDay(d + 1) - 1);
    }
    let best: number | null = null;
    let r = this.trigger.nextFire(from, now);
    for (let i = 0; r !== null; i++) {
      if (i >= MAX_CALENDAR_STEPS) return this.#tooMany(after);
      if ((i & 63) === 63) checkTimeBudget('CalendarTrigger');
      if (best !== null && r > best) break; // a roll only moves later: nothing after `best` beats it
      const day = cal.includedFrom(this.dayOf(r), 1, ROLL_LIMIT_DAYS);
      const a = day === undefined ? undefined : this.#rollTo(r, day);
      if (a !== undefined && a > after && (best === null || a < best)) best = a;
      r = this.trigger.nextFire(r, now);
    }
    return best;
  }

  #rollPrevious(cal: BusinessCalendar, lastFire: number | null, now: number): number | null {
    const after = lastFire ?? now;
    let best: number | null = null;
    let r = this.trigger.nextFire(after, now);
    for (let i = 0; r !== null; i++) {
      if (i >= MAX_CALENDAR_STEPS) return this.#tooMany(after);
      if ((i & 63) === 63) checkTimeBudget('CalendarTrigger');
      const day = cal.includedFrom(this.dayOf(r), -1, ROLL_LIMIT_DAYS);
      // the included day a roll lands on only moves later with r: once it starts after `best`, stop
      if (day !== undefined && best !== null && this.#startOfDay(day) > best) break;
      const a = day === undefined ? undefined : this.#rollTo(r, day);
      if (a !== undefined && a > after && (best === null || a < best)) best = a;
      r = this.trigger.nextFire(r, now);
    }
    return best;
  }

  /** `t`'s wall-clock time of day on day `day`. */
  #rollTo(t: number, day: number): number {
    const from = this.dayOf(t);
    if (from === day) return t;
    const wall = t + this.#zone.offsetAt(t);
    return this.#instantOf(wall + (day - from) * MS_PER_DAY);
  }

  #startOfDay(day: number): number {
    return this.#instantOf(day * MS_PER_DAY);
  }

  /**
   * The instant of a wall-clock time: the earlier of two on a repeated hour, and the time shifted by
   * the gap when it falls in one (the wall-clock reading an hour on, for a one-hour gap).
   */
  #instantOf(wall: number): number {
    const zone = this.#zone;
    const before = zone.offsetAt(wall - 14 * 3_600_000);
    const after = zone.offsetAt(wall + 14 * 3_600_000);
    let best: number | undefined;
    for (const o of [before, after]) {
      const t = wall - o;
      if (zone.offsetAt(t) === o && (best === undefined || t < best)) best = t;
    }
    return best ?? wall - before;
  }

  #tooMany(from: number): never {
    throw new TriggerError(
      'CalendarTrigger',
      'calendar',
      `calendar "${this.calendar}" excludes every occurrence: ${MAX_CALENDAR_STEPS} in a row after ${new Date(from).toISOString()}`,
    );
  }

  /** Throws a `TriggerError` when the wrapped trigger cannot be serialized (a custom trigger). */
  toJSON(): CalendarTriggerJSON {
    const inner = innerJSON(this.trigger);
    if (inner === undefined) {
      throw new TriggerError(
        'CalendarTrigger',
        'trigger',
        'is a custom trigger: it can only be defined in code and cannot be serialized',
      );
    }
    return {
      type: 'calendar',
      calendar: this.calendar,
      trigger: inner,
      ...(this.onExcluded !== 'skip' && { onExcluded: this.onExcluded }),
      ...(this.#zoneGiven && { timezone: this.timezone }),
    };
  }
}

/** The JSON form of a built-in trigger, or undefined for a custom one. */
function innerJSON(t: Trigger): TriggerJSON | undefined {
  const toJSON = (t as Partial<SerializableTrigger>).toJSON;
  if (typeof toJSON !== 'function') return undefined;
  try {
    return toJSON.call(t);
  } catch {
    return undefined;
  }
}

function holdsInterval(json: TriggerJSON): boolean {
  if (json.type === 'interval') return true;
  if (json.type === 'compound') return json.triggers.some(holdsInterval);
  if (json.type === 'except') return holdsInterval(json.trigger);
  return false;
}

/** The day of an instant as `YYYY-MM-DD` in a calendar trigger's zone. */
export function calendarDayText(trigger: CalendarTrigger, t: number): string {
  return dayText(trigger.dayOf(t));
}
