import type { SchedulerManager } from '../scheduler/index.js';
import { internalsOf } from '../scheduler/index.js';
import { redisTime, type StoredCalendar } from '../store/index.js';
import { BusinessCalendar, dayText } from '../triggers/business-calendar.js';
import { dayNumber } from '../triggers/exclusion.js';

/** One named calendar as the dashboard shows it: its current version, who uses it, its next days off. */
export interface CalendarOverview extends StoredCalendar {
  /** The ids of the schedules whose trigger names it, sorted. */
  schedules: string[];
  /**
   * Its next excluded days from today (UTC wall-clock dates; a schedule reads them in its own zone),
   * each with why (`2026-12-25 Christmas`, `2026-12-26 Saturday`), at most `excludedDays`.
   */
  nextExcluded: { date: string; why: string }[];
  /** Why its content cannot be compiled (stored by an older or newer release), when it cannot. */
  error?: string;
}

/** How far ahead `calendarOverviews` looks for excluded days. */
const LOOKAHEAD_DAYS = 400;

/**
 * Every named calendar (or the one named `name`) with the schedules that use it and its next
 * `excludedDays` excluded days from today (Redis's clock). Read-only.
 */
export async function calendarOverviews(
  manager: SchedulerManager,
  options: { name?: string; excludedDays?: number } = {},
): Promise<CalendarOverview[]> {
  const stored =
    options.name === undefined
      ? await manager.calendars.list()
      : [await manager.calendars.get(options.name)].filter((c) => c !== undefined);
  if (stored.length === 0) return [];
  const [now, jobs] = await Promise.all([redisTime(internalsOf(manager).redis), manager.list()]);
  const users = new Map<string, string[]>();
  for (const j of jobs) {
    if (j.def.trigger.type !== 'calendar') continue;
    const list = users.get(j.def.trigger.calendar) ?? [];
    list.push(j.id);
    users.set(j.def.trigger.calendar, list);
  }
  const today = dayNumber(new Date(now).toISOString().slice(0, 10)) ?? 0;
  const most = options.excludedDays ?? 10;
  return stored.map((c) => {
    const schedules = (users.get(c.name) ?? []).sort();
    const nextExcluded: CalendarOverview['nextExcluded'] = [];
    try {
      const cal = new BusinessCalendar(c.name, c.version, c.spec);
      for (let d = today; d < today + LOOKAHEAD_DAYS && nextExcluded.length < most; d++) {
        const why = cal.whyExcluded(d);
        if (why !== undefined) nextExcluded.push({ date: dayText(d), why });
      }
    } catch (err) {
      return { ...c, schedules, nextExcluded, error: (err as Error).message };
    }
    return { ...c, schedules, nextExcluded };
  });
}
