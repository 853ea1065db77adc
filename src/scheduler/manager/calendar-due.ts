import { ScheduleOptionsError } from '../../errors/index.js';
import type { CalendarBook } from '../../store/index.js';
import { CalendarTrigger } from '../../triggers/calendar-trigger.js';
import type { Trigger } from '../../triggers/trigger.js';

/**
 * The trigger a schedule's due time is planned with when it is saved or resumed: for a schedule on a
 * named calendar, its wake-ups (`CalendarTrigger.wakeFire`) read with the calendar's current version,
 * which the fire path decides on when it claims them; any other trigger as it is. A calendar that is
 * not defined is refused, naming `calendar` (nothing is written).
 */
export async function dueTrigger(
  id: string,
  trigger: Trigger,
  calendars: CalendarBook | undefined,
): Promise<Trigger> {
  if (!(trigger instanceof CalendarTrigger) || calendars === undefined) return trigger;
  await calendars.refresh([trigger.calendar]);
  if (!calendars.calendar(trigger.calendar)) {
    throw new ScheduleOptionsError(
      id,
      'calendar',
      `unknown calendar "${trigger.calendar}": define it first (calendars.define(name, ...) or bullbeat calendar:define)`,
    );
  }
  const bound = trigger.withSource(calendars);
  return { nextFire: (last, now) => bound.wakeFire(last, now) };
}
