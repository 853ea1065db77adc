import { describe, expect, it } from 'vitest';
import { CalendarError, TriggerError } from '../../src/errors/index.js';
import { BusinessCalendar, type CalendarSpec } from '../../src/triggers/business-calendar.js';
import { CalendarTrigger, type OnExcluded } from '../../src/triggers/calendar-trigger.js';
import { CronTrigger, IntervalTrigger, triggerFromJSON } from '../../src/triggers/index.js';

const at = (iso: string) => Date.parse(iso);
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

function source(spec: CalendarSpec, version = 1) {
  const cal = new BusinessCalendar('market', version, spec);
  return { calendar: (name: string) => (name === 'market' ? cal : undefined) };
}

const NY = 'America/New_York';
// 2026-11-01 (a Sunday) is the day New York leaves daylight saving time; 2026-11-02 is listed.
const market = source({ dates: [{ date: '2026-11-02', name: 'Founders Day' }], rules: ['weekends'] });

function onCalendar(expression: string, onExcluded: OnExcluded, src = market) {
  return new CalendarTrigger(new CronTrigger(expression, { timezone: NY }), 'market', { onExcluded }, src);
}

describe('CalendarTrigger: business-day roll in the schedule zone', () => {
  it('next: a weekend and a holiday after it roll to Tuesday 09:00, across the DST change', () => {
    const t = onCalendar('0 9 * * *', 'next');
    const friday = at('2026-10-30T13:00:00Z'); // 09:00 EDT
    // Sat, Sun and the Monday holiday all roll onto Tuesday 09:00 EST (14:00Z), once
    expect(iso(t.nextFire(friday, friday))).toBe('2026-11-03T14:00:00.000Z');
    expect(iso(t.nextFire(at('2026-11-03T14:00:00Z'), friday))).toBe('2026-11-04T14:00:00.000Z');
  });

  it('next, previous and skip differ for a monthly occurrence on a Sunday', () => {
    const oct1 = at('2026-10-01T13:00:00Z');
    // 1 November 2026 is a Sunday, 2 November a holiday
    expect(iso(onCalendar('0 9 1 * *', 'next').nextFire(oct1, oct1))).toBe('2026-11-03T14:00:00.000Z');
    expect(iso(onCalendar('0 9 1 * *', 'previous').nextFire(oct1, oct1))).toBe('2026-10-30T13:00:00.000Z');
    expect(iso(onCalendar('0 9 1 * *', 'skip').nextFire(oct1, oct1))).toBe('2026-12-01T14:00:00.000Z');
  });

  it('previous: after the rolled occurrence, the next one is the next month', () => {
    const t = onCalendar('0 9 1 * *', 'previous');
    expect(iso(t.nextFire(at('2026-10-30T13:00:00Z'), 0))).toBe('2026-12-01T14:00:00.000Z');
  });

  it('a roll onto the spring-forward day keeps the wall time; one in the gap is shifted', () => {
    // 2027-03-14: New York skips 02:00-03:00. A Saturday 02:30 rolled to Monday 15th stays 02:30 EDT.
    const src = source({ dates: [{ date: '2027-03-14' }], rules: ['weekends'] });
    const t = onCalendar('30 2 13 3 *', 'next', src);
    expect(iso(t.nextFire(at('2027-03-01T00:00:00Z'), 0))).toBe('2027-03-15T06:30:00.000Z');
    const back = onCalendar(
      '30 2 15 3 *',
      'previous',
      source({ dates: [{ date: '2027-03-15' }], rules: ['exclude sat'] }),
    );
    // Monday 15th excluded: back to Sunday 14th, whose 02:30 does not exist: 03:30 EDT
    expect(iso(back.nextFire(at('2027-03-01T00:00:00Z'), 0))).toBe('2027-03-14T07:30:00.000Z');
  });

  it('exclusion names the calendar, its version and the day', () => {
    const t = onCalendar(
      '0 9 * * *',
      'skip',
      source({ dates: [{ date: '2026-12-25', name: 'Christmas' }], rules: [] }, 3),
    );
    expect(t.exclusion(at('2026-12-25T14:00:00Z'))).toEqual({
      calendar: 'market',
      version: 3,
      reason: '2026-12-25 Christmas',
    });
    expect(t.exclusion(at('2026-12-24T14:00:00Z'))).toBeUndefined();
  });

  it('wakeFire is the wrapped instant for skip and next (a date removed later still fires)', () => {
    const t = onCalendar('0 9 * * *', 'next');
    const friday = at('2026-10-30T13:00:00Z');
    expect(iso(t.wakeFire(friday, friday))).toBe('2026-10-31T13:00:00.000Z');
  });
});

describe('business-day rules', () => {
  const dec = (rules: string[], dates: CalendarSpec['dates'] = []) =>
    new CalendarTrigger(
      new CronTrigger('0 9 * * *', { timezone: 'UTC' }),
      'market',
      {},
      source({ dates, rules }),
    );

  it('business-day 3: the third business day of each month', () => {
    const t = dec(['weekends', 'business-day 3']);
    expect(iso(t.nextFire(null, at('2026-11-30T00:00:00Z')))).toBe('2026-12-03T09:00:00.000Z');
    const holiday = dec(['weekends', 'business-day 3'], [{ date: '2026-12-02' }]);
    expect(iso(holiday.nextFire(null, at('2026-11-30T00:00:00Z')))).toBe('2026-12-04T09:00:00.000Z');
    expect(iso(t.nextFire(at('2026-12-03T09:00:00Z'), 0))).toBe('2027-01-05T09:00:00.000Z'); // Jan 1 is a Friday here: no holiday listed;
  });

  it('last-business-day, moved by a holiday on it', () => {
    expect(iso(dec(['weekends', 'last-business-day']).nextFire(null, at('2026-12-01T00:00:00Z')))).toBe(
      '2026-12-31T09:00:00.000Z',
    );
    const t = dec(['weekends', 'last-business-day'], [{ date: '2026-12-31', name: "New Year's Eve" }]);
    expect(iso(t.nextFire(null, at('2026-12-01T00:00:00Z')))).toBe('2026-12-30T09:00:00.000Z');
    expect(t.exclusion(at('2026-12-31T09:00:00Z'))?.reason).toBe("2026-12-31 New Year's Eve");
    expect(t.exclusion(at('2026-12-29T09:00:00Z'))?.reason).toBe(
      '2026-12-29 is not the last business day of its month',
    );
  });
});

describe('refused input names the field', () => {
  it('a rule that does not parse', () => {
    expect(
      () => new BusinessCalendar('c', 1, { dates: [], rules: ['weekends', 'every other tuesday'] }),
    ).toThrow(CalendarError);
    try {
      new BusinessCalendar('c', 1, { dates: [], rules: ['weekends', 'business-day 40'] });
    } catch (err) {
      expect((err as CalendarError).field).toBe('rules[1]');
    }
  });

  it('a date that is not a date', () => {
    try {
      new BusinessCalendar('c', 1, { dates: [{ date: '2026-12-25' }, { date: '2026-02-30' }], rules: [] });
      expect.unreachable();
    } catch (err) {
      expect((err as CalendarError).field).toBe('dates[1]');
    }
  });

  it('next/previous with an interval trigger; an unknown calendar when planned', () => {
    expect(() => new CalendarTrigger(new IntervalTrigger(60), 'market', { onExcluded: 'next' })).toThrow(
      /onExcluded/,
    );
    const t = new CalendarTrigger(new IntervalTrigger(60), 'nope', {}, market);
    expect(() => t.nextFire(null, 0)).toThrow(TriggerError);
    expect(() => t.nextFire(null, 0)).toThrow(/unknown calendar "nope"/);
  });

  it('round-trips through JSON, reading the calendar from the given source', () => {
    const t = onCalendar('0 9 * * *', 'next');
    const back = triggerFromJSON(JSON.parse(JSON.stringify(t)), { calendars: market });
    expect(back.toJSON()).toEqual(t.toJSON());
    const friday = at('2026-10-30T13:00:00Z');
    expect(back.nextFire(friday, friday)).toBe(t.nextFire(friday, friday));
  });
});
