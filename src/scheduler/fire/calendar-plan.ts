import type { CalendarBook, Claim } from '../../store/index.js';
import type { CalendarTrigger } from '../../triggers/calendar-trigger.js';
import { type OccurrencePlan, type PlanInput, planOccurrence } from './occurrence-planner.js';

/** The calendar a stored definition names (its trigger's JSON starts `{"type":"calendar","calendar":...`). */
const NAMED = /"type":"calendar","calendar":"((?:[^"\\]|\\.)*)"/;

/**
 * Bring the calendars that `claims` use to their current versions (one `HMGET` of version numbers, and
 * the records of those that changed), before they are planned: a calendar changed since this process
 * last read it is read again now. Nothing is read for a batch that uses no calendar.
 */
export async function refreshCalendars(
  book: CalendarBook | undefined,
  claims: readonly Claim[],
): Promise<void> {
  if (!book) return;
  const names = new Set<string>();
  for (const c of claims) {
    const m = NAMED.exec(c.defJSON);
    if (m) names.add(JSON.parse(`"${m[1]}"`) as string);
  }
  if (names.size > 0) await book.refresh(names);
}

const earlier = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.min(a, b);

/**
 * Plan a claim of a schedule on a named calendar, with the calendar's current version. A schedule's due
 * time is a wake-up no later than its next occurrence (`CalendarTrigger.wakeFire`): when claimed, the
 * calendar decides. An instant that is not an occurrence under the current version (its day was
 * excluded since, or it was a wake-up on an excluded day) enqueues nothing and records nothing (as an
 * instant the trigger skips), and the due time moves to the next wake-up; an occurrence runs as any
 * other (`planOccurrence`), its next due time the next wake-up. So a date added to the calendar is
 * skipped, and one removed from it fires, with no write to the schedule.
 */
export function planCalendarOccurrence(
  input: PlanInput & { trigger: CalendarTrigger },
  lastFire: number | null,
): OccurrencePlan {
  const { trigger, fireAt, now, def } = input;
  const lateMs = now - fireAt;
  const inWindow = (t: number | null) => (t !== null && def.endAt !== undefined && t > def.endAt ? null : t);
  const wrapped = (after: number) => trigger.trigger.nextFire(after, now);
  if (trigger.onExcluded === 'skip') {
    if (trigger.exclusion(fireAt) !== undefined) {
      return { missed: [], next: inWindow(wrapped(fireAt)), lateMs };
    }
  } else {
    const expected = trigger.nextFire(lastFire ?? fireAt - 1, now);
    if (expected !== fireAt) {
      const next = trigger.onExcluded === 'next' ? earlier(expected, wrapped(fireAt)) : expected;
      return { missed: [], next: inWindow(next), lateMs };
    }
  }
  const plan = planOccurrence(input);
  if (plan.enqueue?.fireAt === fireAt && plan.next !== null && trigger.onExcluded !== 'previous') {
    plan.next = inWindow(earlier(plan.next, wrapped(fireAt)));
  }
  return plan;
}
