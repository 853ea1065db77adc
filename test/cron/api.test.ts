// The CronParser surface: properties, Date and number inputs, nextN, prev, matches.
import { describe, expect, it } from 'vitest';
import { CronParser } from '../../src/cron/index.js';
import * as root from '../../src/index.js';
import { at, iso, REF } from './support.js';

describe('CronParser properties', () => {
  it('exposes the expression, the zone (default UTC) and hasSeconds', () => {
    const p = new CronParser('0 9 * * 1-5');
    expect(p.expression).toBe('0 9 * * 1-5');
    expect(p.timezone).toBe('UTC');
    expect(p.hasSeconds).toBe(false);
    const q = new CronParser('0 0 9 * * 1-5', { timezone: 'America/New_York' });
    expect(q.timezone).toBe('America/New_York');
    expect(q.hasSeconds).toBe(true);
  });

  it('classifies fixed-time expressions: single values in second, minute and hour', () => {
    const fixed = [
      '0 9 * * *',
      '30 2 * * *',
      '0 0 1 1 *',
      '15 30 2 * * *',
      '0 9 * * 1-5',
      '0 0 L * *',
      '@daily',
    ];
    const interval = [
      '* * * * *',
      '*/15 * * * *',
      '0 9,17 * * *',
      '0 8-18/2 * * 1-5',
      '0 * * * *',
      '30 * * * *',
      '*/20 1 * * *',
      '* 30 2 * * *',
      '*/10 30 2 * * *',
      '@hourly',
    ];
    for (const e of fixed) expect([e, new CronParser(e).fixedTime]).toEqual([e, true]);
    for (const e of interval) expect([e, new CronParser(e).fixedTime]).toEqual([e, false]);
  });

  it('is exported from the package root', () => {
    expect(root.CronParser).toBe(CronParser);
  });

  it('does not mutate the options object it is given', () => {
    const options = { timezone: 'Europe/London', dst: { gap: 'skip' as const } };
    const copy = JSON.parse(JSON.stringify(options));
    new CronParser('0 2 * * *', options).next(at(REF));
    expect(options).toEqual(copy);
  });
});

describe('inputs', () => {
  const p = new CronParser('*/15 * * * *');

  it('accepts a Date as well as epoch ms', () => {
    expect(p.next(new Date(REF))).toBe(p.next(at(REF)));
    expect(p.prev(new Date(REF))).toBe(p.prev(at(REF)));
    expect(p.nextN(3, new Date(REF))).toEqual(p.nextN(3, at(REF)));
    expect(p.matches(new Date('2026-03-11T10:30:00Z'))).toBe(true);
  });

  it('next is strictly after and prev strictly before, whatever the milliseconds', () => {
    const fire = at('2026-03-11T10:30Z');
    expect(iso(p.next(fire))).toBe('2026-03-11T10:45Z');
    expect(iso(p.next(fire - 1))).toBe('2026-03-11T10:30Z');
    expect(iso(p.prev(fire))).toBe('2026-03-11T10:15Z');
    expect(iso(p.prev(fire + 1))).toBe('2026-03-11T10:30Z');
  });

  it('matches is exact to the millisecond', () => {
    expect(p.matches(at('2026-03-11T10:30Z'))).toBe(true);
    expect(p.matches(at('2026-03-11T10:30Z') + 1)).toBe(false);
    expect(p.matches(at('2026-03-11T10:30Z') - 1)).toBe(false);
    expect(p.matches(at('2026-03-11T10:31Z'))).toBe(false);
  });

  it('nextN(0) is empty and nextN returns exactly n strictly increasing instants', () => {
    expect(p.nextN(0, at(REF))).toEqual([]);
    const list = p.nextN(500, at(REF));
    expect(list).toHaveLength(500);
    for (let i = 1; i < list.length; i++) expect(list[i]!).toBeGreaterThan(list[i - 1]!);
    expect(iso(list[499]!)).toBe(iso(at('2026-03-11T10:30Z') + 499 * 15 * 60_000));
  });
});

describe('prev', () => {
  it('walks back over months and leap years', () => {
    expect(iso(new CronParser('0 0 1 * *').prev(at(REF)))).toBe('2026-03-01T00:00Z');
    expect(iso(new CronParser('0 0 29 2 *').prev(at(REF)))).toBe('2024-02-29T00:00Z');
    expect(iso(new CronParser('0 0 L * *').prev(at(REF)))).toBe('2026-02-28T00:00Z');
    expect(iso(new CronParser('0 9 * * 1-5').prev(at('2026-03-16T08:00Z')))).toBe('2026-03-13T09:00Z');
    expect(iso(new CronParser('0 0 * * 5#5').prev(at(REF)))).toBe('2026-01-30T00:00Z');
  });

  it('in a zone', () => {
    expect(iso(new CronParser('0 9 * * *', { timezone: 'America/New_York' }).prev(at(REF)))).toBe(
      '2026-03-10T13:00Z',
    );
    expect(iso(new CronParser('0 9 * * *', { timezone: 'Etc/GMT+5' }).prev(at(REF)))).toBe(
      '2026-03-10T14:00Z',
    );
  });
});

describe('far ranges', () => {
  it('rare expressions far in the past and the future', () => {
    const p = new CronParser('0 0 29 2 1', { dayMatch: 'and' });
    // Feb 29 on a Monday: 1988, 2016, 2044, 2072, then 2112 (2100 is not a leap year)
    expect(iso(p.next(at('1990-01-01T00:00Z')))).toBe('2016-02-29T00:00Z');
    expect(iso(p.next(at('2072-03-01T00:00Z')))).toBe('2112-02-29T00:00Z');
    expect(iso(p.prev(at('2100-01-01T00:00Z')))).toBe('2072-02-29T00:00Z');
    expect(iso(new CronParser('0 0 1 1 *').next(at('2199-06-01T00:00Z')))).toBe('2200-01-01T00:00Z');
  });
});
