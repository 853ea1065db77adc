import { BusinessCalendar, type CalendarSpec } from './business-calendar.js';
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

/** What defining a calendar with new content would do: its versions, and the schedules it moves. */
export interface CalendarChange {
  /** The calendar as the define would leave it. */
  after: BusinessCalendar;
  versionBefore: number | undefined;
  /** The version the define would write (`versionBefore` when the content is the same). */
  versionAfter: number;
  /** False when the content equals the stored version's: the define writes nothing. */
  changed: boolean;
  /** The schedules on it whose next fire times move, before and after. */
  moved: CalendarEffect[];
  /** How many schedules on it keep their next fire times. */
  unchanged: number;
  /** Schedules on it whose fire times could not be computed, with why. */
  errors: { id: string; error: string }[];
}

/**
 * Calendar `name` defined as `spec` over its stored version (`stored`, read as `before`; undefined:
 * none): the version it would get and `calendarEffect` on `schedules`, split into moved, unchanged and
 * failed. Pure: what `calendar:define --dry-run` and `bullbeat plan` both show.
 */
export function calendarChange(input: {
  name: string;
  spec: CalendarSpec;
  stored: { version: number; spec: CalendarSpec } | undefined;
  before: BusinessCalendar | undefined;
  schedules: readonly CalendarEffectSchedule[];
  from: number;
  count?: number;
}): CalendarChange {
  const { name, spec, stored } = input;
  const changed = !stored || JSON.stringify(stored.spec) !== JSON.stringify(spec);
  const versionAfter = stored ? stored.version + (changed ? 1 : 0) : 1;
  const after = new BusinessCalendar(name, versionAfter, spec);
  const effects = calendarEffect({
    before: input.before,
    after,
    from: input.from,
    schedules: input.schedules,
    ...(input.count !== undefined && { count: input.count }),
  });
  return {
    after,
    versionBefore: stored?.version,
    versionAfter,
    changed,
    moved: effects.filter((e) => e.changed && e.error === undefined),
    unchanged: effects.filter((e) => !e.changed && e.error === undefined).length,
    errors: effects.flatMap((e) => (e.error === undefined ? [] : [{ id: e.id, error: e.error }])),
  };
}
