import { civilFromDays, daysFromCivil, daysInMonth, weekdayOfDays } from '../cron/calendar.js';
import { CalendarError } from '../errors/index.js';
import { type CalendarRules, parseCalendarRules } from './calendar-rules.js';
import { dayNumber } from './exclusion.js';

/** One listed date of a calendar: a day (`2026-12-25`) or an inclusive range, with its name. */
export interface CalendarDate {
  /** `YYYY-MM-DD`, or `YYYY-MM-DD..YYYY-MM-DD` (inclusive). */
  date: string;
  /** What it is (`Christmas`); shown by `why` and the agenda. */
  name?: string;
}

/** A calendar's content as stored: dates that are not business days, and rules. */
export interface CalendarSpec {
  dates: CalendarDate[];
  rules: string[];
}

/** The most listed dates a calendar holds. */
export const MAX_CALENDAR_DATES = 10_000;
/** The most days its dates may cover in all (ranges expanded). */
export const MAX_CALENDAR_DAYS = 100_000;

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** `YYYY-MM-DD` of a day number. */
export function dayText(day: number): string {
  const c = civilFromDays(day, { year: 0, month: 0, day: 0 });
  return `${String(c.year).padStart(4, '0')}-${String(c.month).padStart(2, '0')}-${String(c.day).padStart(2, '0')}`;
}

function ordinal(n: number): string {
  if (n === -1) return 'last';
  if (n < 0) return `${ordinal(-n)} to last`;
  const s =
    n % 10 === 1 && n !== 11
      ? 'st'
      : n % 10 === 2 && n !== 12
        ? 'nd'
        : n % 10 === 3 && n !== 13
          ? 'rd'
          : 'th';
  return `${n}${s}`;
}

/**
 * One version of a named calendar, compiled: which wall-clock days (day numbers, read in a
 * schedule's zone) are business days, which are included, and why one is not. Pure; built once per
 * version and shared by every schedule that uses the calendar.
 */
export class BusinessCalendar {
  readonly name: string;
  readonly version: number;
  readonly spec: CalendarSpec;
  readonly #rules: CalendarRules;
  /** Day number → index of the listed date that covers it (the first listed). */
  readonly #listed = new Map<number, number>();
  /** Month key (year * 12 + month) → its included days, for `business-day` rules. */
  readonly #months = new Map<number, Set<number>>();

  /** Throws a `CalendarError` naming the bad date (`dates[i]`) or rule (`rules[i]`). */
  constructor(name: string, version: number, spec: CalendarSpec) {
    this.name = name;
    this.version = version;
    this.spec = spec;
    this.#rules = parseCalendarRules(name, spec.rules);
    if (spec.dates.length > MAX_CALENDAR_DATES) {
      throw new CalendarError(name, 'dates', `at most ${MAX_CALENDAR_DATES} dates, got ${spec.dates.length}`);
    }
    spec.dates.forEach((d, i) => {
      const [first, last] = dateRange(name, d.date, `dates[${i}]`);
      for (let day = first; day <= last; day++) {
        if (!this.#listed.has(day)) this.#listed.set(day, i);
        if (this.#listed.size > MAX_CALENDAR_DAYS) {
          throw new CalendarError(
            name,
            `dates[${i}]`,
            `the dates cover more than ${MAX_CALENDAR_DAYS} days in all`,
          );
        }
      }
    });
  }

  /** Not a closed weekday and not a listed date. */
  isBusinessDay(day: number): boolean {
    return !this.#rules.closedWeekdays.has(weekdayOfDays(day)) && !this.#listed.has(day);
  }

  /** A business day, kept by the `business-day` rules (if any): a schedule may fire on it. */
  includes(day: number): boolean {
    if (!this.isBusinessDay(day)) return false;
    if (this.#rules.nthBusinessDays.length === 0) return true;
    return this.#monthDays(day).has(day);
  }

  /** Why a day is not included (`2026-12-25 Christmas`, `Saturday`), or undefined when it is. */
  whyExcluded(day: number): string | undefined {
    const i = this.#listed.get(day);
    if (i !== undefined) {
      const d = this.spec.dates[i]!;
      return d.name ? `${dayText(day)} ${d.name}` : dayText(day);
    }
    const weekday = weekdayOfDays(day);
    if (this.#rules.closedWeekdays.has(weekday)) return `${dayText(day)} ${WEEKDAYS[weekday]}`;
    if (this.includes(day)) return undefined;
    const kept = this.#rules.nthBusinessDays.map(ordinal).join(' or ');
    return `${dayText(day)} is not the ${kept} business day of its month`;
  }

  /** The first included day on or after `day` (undefined past `limit` days). */
  includedFrom(day: number, step: 1 | -1, limit = 400): number | undefined {
    for (let d = day, n = 0; n <= limit; d += step, n++) if (this.includes(d)) return d;
    return undefined;
  }

  /** The days of `day`'s month that the `business-day` rules keep. */
  #monthDays(day: number): Set<number> {
    const c = civilFromDays(day, { year: 0, month: 0, day: 0 });
    const key = c.year * 12 + c.month;
    let kept = this.#months.get(key);
    if (kept) return kept;
    const first = daysFromCivil(c.year, c.month, 1);
    const business: number[] = [];
    for (let d = first; d < first + daysInMonth(c.year, c.month); d++)
      if (this.isBusinessDay(d)) business.push(d);
    kept = new Set();
    for (const n of this.#rules.nthBusinessDays) {
      const d = n > 0 ? business[n - 1] : business[business.length + n];
      if (d !== undefined) kept.add(d);
    }
    if (this.#months.size > 2_000) this.#months.clear();
    this.#months.set(key, kept);
    return kept;
  }
}

/** The day numbers `[first, last]` of a `YYYY-MM-DD` or `YYYY-MM-DD..YYYY-MM-DD` text. */
function dateRange(calendar: string, text: unknown, field: string): [number, number] {
  if (typeof text !== 'string') {
    throw new CalendarError(
      calendar,
      field,
      `must be a date (YYYY-MM-DD) or a range (YYYY-MM-DD..YYYY-MM-DD), got ${typeof text}`,
    );
  }
  const [a = '', b = a, ...rest] = text.split('..').map((s) => s.trim());
  const first = dayNumber(a);
  const last = dayNumber(b);
  if (rest.length > 0 || first === undefined || last === undefined) {
    throw new CalendarError(
      calendar,
      field,
      `${JSON.stringify(text)} is not a real date (YYYY-MM-DD) or date range (YYYY-MM-DD..YYYY-MM-DD)`,
    );
  }
  if (last < first)
    throw new CalendarError(calendar, field, `${JSON.stringify(text)}: the range ends before it starts`);
  return [first, last];
}
