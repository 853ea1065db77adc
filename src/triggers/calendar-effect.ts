import type { BusinessCalendar } from './business-calendar.js';
import { CalendarTrigger } from './calendar-trigger.js';
import type { TriggerJSON } from './trigger.js';
import { triggerFromJSON } from './trigger-from-json.js';

/** A schedule whose next fire times `calendarEffect` compares. */
export interface CalendarEffectSchedule {
  id: string;
  /** Its stored trigger (`def.trigger`); schedules on other calendars, or none, are left out. */
  trigger: TriggerJSON | { type: string };
  /** Its last fire time, if it fired (the walk starts after it, else after `from`). */
  lastFire?: number | null;
}

/** One schedule's next fire times under two versions of a calendar. */
export interface CalendarEffect {
  id: string;
  before: number[];
  after: number[];
  changed: boolean;
  /** Why its times could not be computed (a trigger that throws, a calendar that leaves nothing). */
  error?: string;
}

/**
 * The effect of a calendar change on the schedules that use it (pure): each one's next `count` fire
 * times after `from` under version `before` (undefined: the calendar did not exist) and under `after`.
 * What `bullbeat plan` shows for a calendar; schedules that do not name `after.name` are left out.
 */
export function calendarEffect(input: {
  before: BusinessCalendar | undefined;
  after: BusinessCalendar;
  schedules: readonly CalendarEffectSchedule[];
  from: number;
  count?: number;
}): CalendarEffect[] {
  const { before, after, from } = input;
  const count = input.count ?? 3;
  const out: CalendarEffect[] = [];
  for (const s of input.schedules) {
    const spec = s.trigger as { type: string; calendar?: string };
    if (spec.type !== 'calendar' || spec.calendar !== after.name) continue;
    const times = (cal: BusinessCalendar | undefined): number[] => {
      const trigger = triggerFromJSON(s.trigger, { calendars: { calendar: () => cal } });
      if (!(trigger instanceof CalendarTrigger) || cal === undefined) return [];
      const list: number[] = [];
      let last = s.lastFire ?? null;
      for (let i = 0; i < count; i++) {
        const next = trigger.nextFire(last, from);
        if (next === null) break;
        list.push(next);
        last = next;
      }
      return list;
    };
    try {
      const b = times(before);
      const a = times(after);
      out.push({ id: s.id, before: b, after: a, changed: b.join() !== a.join() });
    } catch (err) {
      out.push({ id: s.id, before: [], after: [], changed: false, error: (err as Error).message });
    }
  }
  return out;
}
