import { CalendarError } from '../../errors/index.js';
import type { CalendarOrigin } from '../../store/index.js';
import { BusinessCalendar, type CalendarDate, type CalendarSpec } from '../../triggers/business-calendar.js';
import { calendarNameProblem } from '../../triggers/calendar-trigger.js';
import { datesFromIcs } from './ics-dates.js';

/** What `calendars.define(name, input)` takes: any of dates, an `.ics` text and rules. */
export interface CalendarInput {
  /**
   * Days that are not business days, read in each schedule's zone: `'2026-12-25'`, a range
   * `'2026-12-24..2026-12-26'`, either followed by a name (`'2026-12-25 Christmas'`), or
   * `{ date, name }`.
   * @defaultValue none
   */
  dates?: (string | CalendarDate)[];
  /**
   * An iCalendar text (the content of an `.ics` file): each event's days, named by its summary,
   * recurring events expanded (up to 1,000 occurrences each). Added to `dates`.
   * @defaultValue none
   */
  ics?: string;
  /**
   * Rules: `'weekends'`, `'exclude fri,sat'`, `'business-day 3'` (only the 3rd business day of each
   * month), `'business-day -2'`, `'last-business-day'`.
   * @defaultValue none
   */
  rules?: string[];
}

const NAMED = /^(\S+)\s+(.+)$/;

/** One `dates` entry as stored: the date (or range) and its name. */
function dateEntry(name: string, e: unknown, i: number): CalendarDate {
  const field = `dates[${i}]`;
  if (typeof e === 'string') {
    const text = e.trim();
    const m = NAMED.exec(text);
    return m ? { date: m[1]!, name: m[2]!.trim() } : { date: text };
  }
  if (typeof e === 'object' && e !== null && !Array.isArray(e)) {
    const { date, name: label, ...rest } = e as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined)
      throw new CalendarError(name, `${field}.${extra}`, 'unknown field (expected date, name)');
    if (typeof date !== 'string')
      throw new CalendarError(name, `${field}.date`, 'required: YYYY-MM-DD or YYYY-MM-DD..YYYY-MM-DD');
    if (label !== undefined && (typeof label !== 'string' || label.length > 200)) {
      throw new CalendarError(name, `${field}.name`, 'must be a text of at most 200 characters');
    }
    return {
      date: date.trim(),
      ...(typeof label === 'string' && label.trim() !== '' && { name: label.trim() }),
    };
  }
  throw new CalendarError(
    name,
    field,
    `must be a date text or { date, name }, got ${JSON.stringify(e) ?? typeof e}`,
  );
}

/**
 * Check a calendar's name and input and turn them into what is stored: the dates (the `.ics` events
 * appended) and the rules, compiled once to prove they work. Throws a `CalendarError` naming the field
 * (`name`, `dates[2]`, `ics`, `rules[0]`); nothing is written then.
 */
export function resolveCalendarInput(
  name: unknown,
  input: unknown,
): { spec: CalendarSpec; origin: CalendarOrigin } {
  const nameProblem = calendarNameProblem(name);
  if (nameProblem) throw new CalendarError(String(name), 'name', nameProblem);
  const n = name as string;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new CalendarError(n, '(root)', 'must be an object { dates, ics, rules }');
  }
  const { dates, ics, rules, ...rest } = input as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw new CalendarError(n, extra, 'unknown field (expected dates, ics, rules)');
  if (dates !== undefined && !Array.isArray(dates))
    throw new CalendarError(n, 'dates', 'must be an array of dates');
  if (rules !== undefined && !Array.isArray(rules))
    throw new CalendarError(n, 'rules', 'must be an array of rules');
  if (ics !== undefined && typeof ics !== 'string')
    throw new CalendarError(n, 'ics', 'must be the text of an .ics file');
  if (dates === undefined && rules === undefined && ics === undefined) {
    throw new CalendarError(n, '(root)', 'give at least one of dates, ics, rules');
  }
  const listed = (dates ?? []).map((e, i) => dateEntry(n, e, i));
  const fromIcs = ics === undefined ? [] : datesFromIcs(n, ics);
  const spec: CalendarSpec = { dates: [...listed, ...fromIcs], rules: (rules ?? []) as string[] };
  new BusinessCalendar(n, 0, spec); // throws naming dates[i] / rules[i]
  const kinds = [dates && 'dates', ics !== undefined && 'ics', rules && 'rules'].filter(
    Boolean,
  ) as CalendarOrigin[];
  return { spec, origin: kinds.length === 1 ? kinds[0]! : 'mixed' };
}
