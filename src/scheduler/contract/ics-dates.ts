import ICAL from 'ical.js';
import { CalendarError } from '../../errors/index.js';
import type { CalendarDate } from '../../triggers/business-calendar.js';

/** Occurrences of one recurring event taken at most (and never past `ICS_LAST_YEAR`). */
const MAX_RECURRENCES = 1000;
const ICS_LAST_YEAR = 2200;

type IcsTime = {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  isDate: boolean;
};

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const dateOf = (t: IcsTime) => `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}`;

/** The last day an event covers: DTEND is exclusive for a whole-day event and for one ending at midnight. */
function lastDay(start: IcsTime, end: IcsTime | null): string {
  if (!end) return dateOf(start);
  const midnight = end.isDate || (end.hour === 0 && end.minute === 0 && end.second === 0);
  const d = new Date(Date.UTC(end.year, end.month - 1, end.day));
  if (midnight && dateOf(end) > dateOf(start)) d.setUTCDate(d.getUTCDate() - 1);
  const text = d.toISOString().slice(0, 10);
  const first = dateOf(start);
  // biome-ignore lint/complexity/useMathMinMax: ISO dates compared as strings
  return text < first ? first : text; // an end before its start: the start day alone
}

function entry(start: IcsTime, end: IcsTime | null, name: string): CalendarDate {
  const first = dateOf(start);
  const last = lastDay(start, end);
  return { date: first === last ? first : `${first}..${last}`, ...(name && { name }) };
}

/**
 * The dates of an iCalendar text (RFC 5545, read with ical.js): each `VEVENT` gives the days from its
 * `DTSTART` to its `DTEND` (whole-day events: the days themselves), named by its `SUMMARY`; a
 * recurring event (`RRULE`) gives each occurrence, up to 1,000 per event. Times are read as the wall
 * date they state. Throws a `CalendarError` (field `ics`) for a text that does not parse or holds no event.
 */
export function datesFromIcs(calendar: string, text: string): CalendarDate[] {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  } catch (err) {
    throw new CalendarError(calendar, 'ics', `does not parse as iCalendar: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (root.name !== 'vcalendar') {
    throw new CalendarError(
      calendar,
      'ics',
      `expected a VCALENDAR, got ${root.name.toUpperCase() || 'nothing'}`,
    );
  }
  const dates: CalendarDate[] = [];
  root.getAllSubcomponents('vevent').forEach((component, i) => {
    let event: ICAL.Event;
    try {
      event = new ICAL.Event(component);
    } catch (err) {
      throw new CalendarError(calendar, `ics: VEVENT ${i + 1}`, (err as Error).message, { cause: err });
    }
    const start = event.startDate as unknown as IcsTime | null;
    if (!start) throw new CalendarError(calendar, `ics: VEVENT ${i + 1}`, 'has no DTSTART');
    const name = (event.summary ?? '').trim();
    if (!event.isRecurring()) {
      dates.push(entry(start, event.endDate as unknown as IcsTime | null, name));
      return;
    }
    const lengthMs = event.endDate
      ? event.endDate.toJSDate().getTime() - event.startDate.toJSDate().getTime()
      : 0;
    const it = event.iterator();
    for (let n = 0; n < MAX_RECURRENCES; n++) {
      const next = it.next() as unknown as (IcsTime & { toJSDate(): Date; clone(): ICAL.Time }) | undefined;
      if (!next || next.year > ICS_LAST_YEAR) break;
      const end = next.clone();
      end.addDuration(ICAL.Duration.fromSeconds(Math.round(lengthMs / 1000)));
      dates.push(entry(next, lengthMs > 0 ? (end as unknown as IcsTime) : null, name));
    }
  });
  if (dates.length === 0) throw new CalendarError(calendar, 'ics', 'holds no VEVENT: no date to import');
  return dates;
}
