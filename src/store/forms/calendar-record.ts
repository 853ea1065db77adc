import type { CalendarSpec } from '../../triggers/business-calendar.js';

/** The format of a stored calendar record; a newer one is refused by this release's readers. */
export const CALENDAR_FORMAT = 1;

/** Where a calendar version's dates came from. */
export type CalendarOrigin = 'dates' | 'ics' | 'rules' | 'mixed';

/** One version of a named calendar as stored (`keys.calendars`, JSON). */
export interface StoredCalendar {
  name: string;
  /** 1 for the first definition, one more for each change. */
  version: number;
  spec: CalendarSpec;
  origin: CalendarOrigin;
  /** When this version was written (Redis time, epoch ms). */
  at: number;
  /** Who wrote it (the audit actor). */
  by: string;
}

/** The stored form of a calendar version. */
export function encodeCalendar(c: StoredCalendar): string {
  return JSON.stringify({ f: CALENDAR_FORMAT, ...c });
}

/** Read a stored calendar version; `problem` says why it cannot be read (never thrown). */
export function decodeCalendar(
  name: string,
  json: string | null | undefined,
): { calendar?: StoredCalendar; problem?: string } {
  if (!json) return { problem: `calendar "${name}" is not defined` };
  try {
    const o = JSON.parse(json) as Partial<StoredCalendar> & { f?: number };
    if (typeof o.f === 'number' && o.f > CALENDAR_FORMAT) {
      return {
        problem: `calendar "${name}" is stored in format ${o.f}; this release reads format ${CALENDAR_FORMAT}: upgrade bullbeat`,
      };
    }
    const spec = o.spec;
    if (
      typeof o.version !== 'number' ||
      typeof spec !== 'object' ||
      spec === null ||
      !Array.isArray(spec.dates) ||
      !Array.isArray(spec.rules)
    ) {
      return { problem: `calendar "${name}": its stored record cannot be read` };
    }
    return {
      calendar: {
        name,
        version: o.version,
        spec: { dates: spec.dates, rules: spec.rules },
        origin: (o.origin as CalendarOrigin) ?? 'dates',
        at: typeof o.at === 'number' ? o.at : 0,
        by: typeof o.by === 'string' ? o.by : '',
      },
    };
  } catch (err) {
    return { problem: `calendar "${name}": its stored record cannot be read: ${(err as Error).message}` };
  }
}

/** One change of a calendar, from its audit trail. */
export interface CalendarChange {
  /** The stream entry id. */
  id: string;
  at: number;
  op: 'define' | 'update';
  actor: string;
  source: string;
  version: number;
  /** The version's content before the change (absent for the first definition) and after. */
  before?: CalendarSpec;
  after: CalendarSpec;
}
