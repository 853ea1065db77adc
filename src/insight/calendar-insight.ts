import type { ScheduledJob, SchedulerManager } from '../scheduler/index.js';
import { type CalendarSource, CalendarTrigger } from '../triggers/calendar-trigger.js';
import type { Trigger } from '../triggers/trigger.js';
import { expectedAtOrBefore } from './expected-occurrence.js';
import type { WhyReport } from './why-types.js';
import { iso } from './why-words.js';

/** The calendars that `jobs` name, read at their current versions (one round trip, none if unused). */
export async function calendarsOf(
  manager: SchedulerManager,
  jobs: readonly ScheduledJob[],
): Promise<CalendarSource> {
  const names = jobs.flatMap((j) => (j.def.trigger.type === 'calendar' ? [j.def.trigger.calendar] : []));
  return manager.calendars.current(names);
}

/**
 * The next occurrence of a schedule on a calendar, from its stored due time (a wake-up no later than
 * it: `CalendarTrigger.wakeFire`), with the calendar's current version; any other trigger's is the
 * due time itself.
 */
export function nextOccurrence(
  trigger: Trigger,
  due: number | null,
  lastFire: number | null,
  now: number,
): number | null {
  if (due === null || !(trigger instanceof CalendarTrigger)) return due;
  return trigger.appliedRun(due, lastFire, now);
}

/**
 * `schedule:why` for an instant its calendar excluded: when the wrapped trigger's latest instant at or
 * before `at` is later than the schedule's latest occurrence and its day is excluded (and no roll moved
 * it there), the answer is the calendar, its version and the day: `excluded by calendar
 * us-market-days v3: 2026-12-25 Christmas`. Undefined otherwise (the usual chain applies).
 */
export function calendarVerdict(
  trigger: Trigger | undefined,
  job: ScheduledJob,
  at: number,
  now: number,
  occurrencePlanned: number | null,
): WhyReport | undefined {
  if (!(trigger instanceof CalendarTrigger)) return undefined;
  let raw: ReturnType<typeof expectedAtOrBefore>;
  let excluded: ReturnType<CalendarTrigger['exclusion']>;
  try {
    raw = expectedAtOrBefore(trigger.trigger, at, { startAt: job.def.startAt, endAt: job.def.endAt });
    if (!raw || (occurrencePlanned !== null && raw.planned <= occurrencePlanned)) return undefined;
    excluded = trigger.exclusion(raw.planned);
  } catch {
    return undefined;
  }
  if (!excluded) return undefined;
  const roll = trigger.onExcluded === 'skip' ? 'skipped' : `moved to the ${trigger.onExcluded} business day`;
  const summary = `excluded by calendar ${excluded.calendar} v${excluded.version}: ${excluded.reason} (${roll})`;
  return {
    scheduleId: job.id,
    name: job.name,
    queue: job.queue,
    at,
    now,
    occurrence: raw,
    fireAt: null,
    record: null,
    facts: [
      {
        link: 'trigger',
        at: raw.planned,
        text: `the trigger's instant ${iso(raw.planned)} (${raw.local})`,
        ok: true,
      },
      { link: 'schedule', at: raw.planned, text: summary, ok: false },
    ],
    ran: false,
    cause: 'calendar',
    summary,
  };
}
