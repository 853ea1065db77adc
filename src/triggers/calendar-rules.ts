import { CalendarError } from '../errors/index.js';

/**
 * The rules of a named calendar, parsed once. A rule is a short text:
 *
 * - `weekends`: Saturday and Sunday are not business days;
 * - `exclude fri,sat`: those weekdays (names or 0-6, Sunday = 0) are not business days;
 * - `business-day 3`: only the 3rd business day of each month is included (`business-day -2`: the
 *   second to last); `last-business-day` is `business-day -1`.
 *
 * Exclusion rules and listed dates decide what a business day is; `business-day` rules then keep
 * only the days they name (several: any of them).
 */
export interface CalendarRules {
  /** Weekdays (0-6, Sunday = 0) that are never business days. */
  readonly closedWeekdays: ReadonlySet<number>;
  /** The business days of a month kept (1 = first, -1 = last); empty: every business day. */
  readonly nthBusinessDays: readonly number[];
}

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A weekday by number (0-7, Sunday = 0 and 7), full name or three-letter name; undefined otherwise. */
function weekdayOf(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (/^[0-7]$/.test(t)) return Number(t) % 7;
  const i = DAY_NAMES.findIndex((name) => name === t || name.slice(0, 3) === t);
  return i >= 0 ? i : undefined;
}

const EXPECTED =
  'expected "weekends", "exclude <weekdays>" (e.g. "exclude fri,sat"), "business-day <n>" (n = 1..23 or -1..-23) or "last-business-day"';

/** Parse a calendar's rules; throws a `CalendarError` naming `rules[i]` and what is wrong. */
export function parseCalendarRules(calendar: string, rules: readonly unknown[]): CalendarRules {
  const closed = new Set<number>();
  const nth: number[] = [];
  rules.forEach((rule, i) => {
    const field = `rules[${i}]`;
    if (typeof rule !== 'string') {
      throw new CalendarError(calendar, field, `must be a text, got ${typeof rule}; ${EXPECTED}`);
    }
    const text = rule.trim().toLowerCase().replace(/\s+/g, ' ');
    if (text === 'weekends' || text === 'weekend') {
      closed.add(0).add(6);
      return;
    }
    if (text === 'last-business-day') {
      nth.push(-1);
      return;
    }
    const exclude = /^exclude (.+)$/.exec(text);
    if (exclude) {
      for (const part of exclude[1]!.split(',')) {
        const day = weekdayOf(part);
        if (day === undefined) {
          throw new CalendarError(
            calendar,
            field,
            `"${part.trim()}" in ${JSON.stringify(rule)} is not a weekday`,
          );
        }
        closed.add(day);
      }
      if (closed.size === 7)
        throw new CalendarError(calendar, field, 'excludes every weekday: no business day is left');
      return;
    }
    const business = /^business-day (-?\d+)$/.exec(text);
    if (business) {
      const n = Number(business[1]);
      if (n === 0 || Math.abs(n) > 23) {
        throw new CalendarError(
          calendar,
          field,
          `${JSON.stringify(rule)}: n must be 1..23 or -1..-23, got ${n}`,
        );
      }
      nth.push(n);
      return;
    }
    throw new CalendarError(calendar, field, `unknown rule ${JSON.stringify(rule)}; ${EXPECTED}`);
  });
  return { closedWeekdays: closed, nthBusinessDays: [...new Set(nth)] };
}
