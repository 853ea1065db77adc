// The fire path's decision for a schedule on a calendar (pure): a wake-up on an excluded day enqueues
// nothing and moves on; the calendar's current version decides, so an added date is skipped and a
// removed one fires, with no change to the schedule.
import { describe, expect, it } from 'vitest';
import { planCalendarOccurrence } from '../../src/scheduler/fire/calendar-plan.js';
import { BusinessCalendar, type CalendarSpec } from '../../src/triggers/business-calendar.js';
import { calendarEffect } from '../../src/triggers/calendar-effect.js';
import { CalendarTrigger, type OnExcluded } from '../../src/triggers/calendar-trigger.js';
import { CronTrigger } from '../../src/triggers/index.js';
import { definition } from './helpers.js';

const at = (iso: string) => Date.parse(iso);
const NY = 'America/New_York';

/** A calendar source whose version a test replaces, as a `define` does. */
function live(spec: CalendarSpec) {
  let cal = new BusinessCalendar('mkt', 1, spec);
  return {
    calendar: (name: string) => (name === 'mkt' ? cal : undefined),
    set(next: CalendarSpec) {
      cal = new BusinessCalendar('mkt', cal.version + 1, next);
    },
  };
}

function plan(trigger: CalendarTrigger, fireAt: number, lastFire: number | null) {
  return planCalendarOccurrence({ def: definition(), trigger, fireAt, now: fireAt - 10, fired: 1 }, lastFire);
}

describe('planCalendarOccurrence', () => {
  const daily = (src: ReturnType<typeof live>, onExcluded: OnExcluded) =>
    new CalendarTrigger(new CronTrigger('0 9 * * *', { timezone: NY }), 'mkt', { onExcluded }, src);
  const fri = at('2026-10-30T13:00:00Z');
  const sat = at('2026-10-31T13:00:00Z');
  const sun = at('2026-11-01T14:00:00Z');
  const mon = at('2026-11-02T14:00:00Z');
  const tue = at('2026-11-03T14:00:00Z');

  it('next: wakes on Saturday and Sunday without enqueueing, runs Monday once', () => {
    const src = live({ dates: [], rules: ['weekends'] });
    const t = daily(src, 'next');
    const onFri = plan(t, fri, null);
    expect(onFri.enqueue?.fireAt).toBe(fri);
    expect(onFri.next).toBe(sat); // a wake-up: the wrapped trigger's next instant
    expect(plan(t, sat, fri)).toEqual({ missed: [], next: sun, lateMs: -10 });
    expect(plan(t, sun, fri)).toEqual({ missed: [], next: mon, lateMs: -10 });
    expect(plan(t, mon, fri).enqueue?.fireAt).toBe(mon);
  });

  it('a date added after the due time was stored is skipped; one removed fires', () => {
    const src = live({ dates: [], rules: ['weekends'] });
    const t = daily(src, 'skip');
    expect(plan(t, mon, fri).enqueue?.fireAt).toBe(mon);
    src.set({ dates: [{ date: '2026-11-02', name: 'Holiday' }], rules: ['weekends'] });
    const skipped = plan(t, mon, fri);
    expect(skipped.enqueue).toBeUndefined();
    expect(skipped.missed).toEqual([]);
    expect(skipped.next).toBe(tue);
    src.set({ dates: [], rules: ['weekends'] });
    expect(plan(t, mon, fri).enqueue?.fireAt).toBe(mon);
  });

  it('next: a holiday added on Monday moves the rolled weekend to Tuesday', () => {
    const src = live({ dates: [{ date: '2026-11-02' }], rules: ['weekends'] });
    const t = daily(src, 'next');
    expect(plan(t, mon, fri)).toEqual({ missed: [], next: tue, lateMs: -10 });
    expect(plan(t, tue, fri).enqueue?.fireAt).toBe(tue);
  });
});

describe('calendarEffect', () => {
  it("each schedule's next fire times under two versions, and whether they changed", () => {
    const v1 = new BusinessCalendar('mkt', 1, { dates: [], rules: ['weekends'] });
    const v2 = new BusinessCalendar('mkt', 2, { dates: [{ date: '2026-12-25' }], rules: ['weekends'] });
    const on = (expression: string) => ({
      type: 'calendar',
      calendar: 'mkt',
      trigger: { type: 'cron', expression, timezone: 'UTC' },
    });
    const effect = calendarEffect({
      before: v1,
      after: v2,
      from: at('2026-12-23T00:00:00Z'),
      count: 2,
      schedules: [
        { id: 'daily', trigger: on('0 9 * * *') },
        { id: 'monthly', trigger: on('0 9 1 * *') },
        { id: 'other', trigger: { type: 'cron', expression: '0 9 * * *' } },
      ],
    });
    expect(effect).toEqual([
      {
        id: 'daily',
        before: [at('2026-12-23T09:00:00Z'), at('2026-12-24T09:00:00Z')],
        after: [at('2026-12-23T09:00:00Z'), at('2026-12-24T09:00:00Z')],
        changed: false,
      },
      {
        id: 'monthly',
        before: [at('2027-01-01T09:00:00Z'), at('2027-02-01T09:00:00Z')],
        after: [at('2027-01-01T09:00:00Z'), at('2027-02-01T09:00:00Z')],
        changed: false,
      },
    ]);
    const three = calendarEffect({
      before: v1,
      after: v2,
      from: at('2026-12-23T00:00:00Z'),
      count: 3,
      schedules: [{ id: 'daily', trigger: on('0 9 * * *') }],
    });
    expect(three[0]).toMatchObject({
      before: [at('2026-12-23T09:00:00Z'), at('2026-12-24T09:00:00Z'), at('2026-12-25T09:00:00Z')],
      after: [at('2026-12-23T09:00:00Z'), at('2026-12-24T09:00:00Z'), at('2026-12-28T09:00:00Z')],
      changed: true,
    });
  });
});
