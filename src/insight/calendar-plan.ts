import type { CalendarInput, SchedulerManager } from '../scheduler/index.js';
import { internalsOf, resolveCalendarInput } from '../scheduler/index.js';
import { redisTime } from '../store/index.js';
import { BusinessCalendar, type CalendarEffect, calendarChange } from '../triggers/index.js';

/** What a calendar change would do, before it is written (`calendar:define --dry-run`). */
export interface CalendarPlan {
  name: string;
  /** The version now stored (undefined: the calendar does not exist yet). */
  versionBefore: number | undefined;
  /** The version the change would write (`versionBefore` when the content is the same: nothing to write). */
  versionAfter: number;
  /** False when the content equals the stored version's: a define would write nothing. */
  changed: boolean;
  /** When the fire times were computed (Redis time, epoch ms). */
  at: number;
  /** The schedules on this calendar whose next fire times the change moves, before and after. */
  moved: CalendarEffect[];
  /** How many schedules on this calendar keep their next fire times. */
  unchanged: number;
  /** Schedules on this calendar whose fire times could not be computed, with why. */
  errors: { id: string; error: string }[];
}

/**
 * The effect of defining calendar `name` as `input` on every schedule that uses it (their next `count`
 * fire times under the stored version and under the new content), read-only: nothing is written. Bad
 * input throws the `CalendarError` a define would, naming the field.
 */
export async function calendarPlan(
  manager: SchedulerManager,
  name: string,
  input: CalendarInput,
  count = 3,
): Promise<CalendarPlan> {
  const { spec } = resolveCalendarInput(name, input);
  const stored = await manager.calendars.get(name);
  const before = stored ? new BusinessCalendar(name, stored.version, stored.spec) : undefined;
  const at = await redisTime(internalsOf(manager).redis);
  const jobs = (await manager.list()).filter(
    (j) => j.def.trigger.type === 'calendar' && j.def.trigger.calendar === name && j.nextRunTime !== null,
  );
  const { after: _after, ...change } = calendarChange({
    name,
    spec,
    stored,
    before,
    from: at,
    count,
    schedules: jobs.map((j) => ({ id: j.id, trigger: j.def.trigger, lastFire: j.lastRunTime ?? null })),
  });
  return { name, at, ...change };
}
