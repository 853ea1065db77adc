import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { CronParser } from '../../src/cron/index.js';
import { CronSyntaxError, InvalidTimezoneError, TriggerError } from '../../src/errors/index.js';
import { CronTrigger } from '../../src/triggers/index.js';
import { DAY, HOUR, MINUTE, seededRandom, utc } from './seeded-random.js';

// Saturday 2026-01-03 10:07 UTC (05:07 in New York).
const NOW = utc(2026, 1, 3, 10, 7);
const NY = 'America/New_York';

function fires(trigger: CronTrigger, count: number, now = NOW): (number | null)[] {
  const out: (number | null)[] = [];
  let last: number | null = null;
  for (let i = 0; i < count; i++) {
    last = trigger.nextFire(last, now);
    out.push(last);
    if (last === null) break;
  }
  return out;
}

/** 09:00 New York time on the given day, by luxon (independent of the engine under test). */
function nineInNewYork(year: number, month: number, day: number): number {
  return DateTime.fromObject({ year, month, day, hour: 9 }, { zone: NY }).toMillis();
}

describe('CronTrigger without jitter', () => {
  it('exposes its parser, expression and zone', () => {
    const trigger = new CronTrigger('0 9 * * 1-5', { timezone: NY });
    expect(trigger.parser).toBeInstanceOf(CronParser);
    expect(trigger.expression).toBe('0 9 * * 1-5');
    expect(trigger.timezone).toBe(NY);
    expect(new CronTrigger('* * * * *').timezone).toBe('UTC');
  });

  it('9 AM weekdays in New York, from a Saturday', () => {
    expect(fires(new CronTrigger('0 9 * * 1-5', { timezone: NY }), 6)).toEqual([
      utc(2026, 1, 5, 14),
      utc(2026, 1, 6, 14),
      utc(2026, 1, 7, 14),
      utc(2026, 1, 8, 14),
      utc(2026, 1, 9, 14),
      utc(2026, 1, 12, 14),
    ]);
  });

  it('the same wall time moves in UTC across the DST changes (2026-03-08 and 2026-11-01)', () => {
    const daily = new CronTrigger('0 9 * * *', { timezone: NY });
    expect(fires(daily, 4, utc(2026, 3, 6))).toEqual([
      utc(2026, 3, 6, 14),
      utc(2026, 3, 7, 14),
      utc(2026, 3, 8, 13),
      utc(2026, 3, 9, 13),
    ]);
    expect(fires(daily, 3, utc(2026, 10, 31))).toEqual([
      utc(2026, 10, 31, 13),
      utc(2026, 11, 1, 14),
      utc(2026, 11, 2, 14),
    ]);
  });

  it('a fixed time inside the spring gap runs at the transition; in the repeated hour, once', () => {
    // 02:30 does not exist on 2026-03-08 in New York: it runs at 03:00 EDT (07:00Z).
    expect(fires(new CronTrigger('30 2 * * *', { timezone: NY }), 3, utc(2026, 3, 7))).toEqual([
      utc(2026, 3, 7, 7, 30),
      utc(2026, 3, 8, 7),
      utc(2026, 3, 9, 6, 30),
    ]);
    // 01:30 happens twice on 2026-11-01: the first pass (EDT, 05:30Z) only.
    expect(fires(new CronTrigger('30 1 * * *', { timezone: NY }), 3, utc(2026, 10, 31))).toEqual([
      utc(2026, 10, 31, 5, 30),
      utc(2026, 11, 1, 5, 30),
      utc(2026, 11, 2, 6, 30),
    ]);
  });

  it('continues from lastFire, not from now', () => {
    const hourly = new CronTrigger('0 * * * *');
    expect(hourly.nextFire(utc(2026, 1, 1, 3), NOW)).toBe(utc(2026, 1, 1, 4));
    expect(hourly.nextFire(utc(2026, 1, 1, 3, 30), NOW)).toBe(utc(2026, 1, 1, 4));
  });

  it('six fields: seconds', () => {
    expect(fires(new CronTrigger('*/20 * * * * *'), 3)).toEqual([NOW + 20_000, NOW + 40_000, NOW + 60_000]);
  });
});

describe('CronTrigger with jitter: a random time inside a window', () => {
  it('0 9 * * * with 7200 s in New York: once a day between 09:00 and 11:00, over 400 days and two DST changes', () => {
    const trigger = new CronTrigger('0 9 * * *', { timezone: NY, jitter: 7200, random: seededRandom(7) });
    const start = utc(2026, 1, 1, 12); // 07:00 in New York
    const all = fires(trigger, 400, start) as number[];
    const offsets: number[] = [];
    all.forEach((t, k) => {
      const day = DateTime.fromMillis(start, { zone: NY }).plus({ days: k });
      const windowStart = nineInNewYork(day.year, day.month, day.day);
      expect(t).toBeGreaterThanOrEqual(windowStart);
      expect(t).toBeLessThanOrEqual(windowStart + 2 * HOUR);
      offsets.push(t - windowStart);
    });
    expect(Math.min(...offsets)).toBeLessThan(5 * MINUTE);
    expect(Math.max(...offsets)).toBeGreaterThan(115 * MINUTE);
  });

  it('counted from the cron instant: always at the end of the window still gives one run a day', () => {
    const late = new CronTrigger('0 9 * * *', { timezone: NY, jitter: 7200, random: () => 1 });
    expect(fires(late, 3)).toEqual([utc(2026, 1, 3, 16), utc(2026, 1, 4, 16), utc(2026, 1, 5, 16)]);
    const early = new CronTrigger('0 9 * * *', { timezone: NY, jitter: 7200, random: () => 0 });
    expect(fires(early, 3)).toEqual([utc(2026, 1, 3, 14), utc(2026, 1, 4, 14), utc(2026, 1, 5, 14)]);
  });

  it('a run that happened late (lastFire inside or after the window) still counts from its instant', () => {
    const trigger = new CronTrigger('0 9 * * *', { timezone: NY, jitter: 7200, random: () => 0.5 });
    expect(trigger.instantAfter(utc(2026, 1, 5, 15, 59))).toBe(utc(2026, 1, 6, 14));
    expect(trigger.nextFire(utc(2026, 1, 5, 15, 59), NOW)).toBe(utc(2026, 1, 6, 15));
    expect(trigger.nextFire(utc(2026, 1, 5, 23), NOW)).toBe(utc(2026, 1, 6, 15));
  });

  it('never fired while a window is open: the next instant after now', () => {
    const trigger = new CronTrigger('0 9 * * *', { timezone: NY, jitter: 7200, random: () => 0.25 });
    // 09:30 New York on Monday 2026-01-05.
    expect(trigger.nextFire(null, utc(2026, 1, 5, 14, 30))).toBe(utc(2026, 1, 6, 14, 30));
  });

  it('jitter longer than the spacing: strictly increasing, and a run delayed past the next instant takes its place', () => {
    const trigger = new CronTrigger('*/5 * * * *', { jitter: 600, random: () => 1 });
    expect(fires(trigger, 4)).toEqual([
      utc(2026, 1, 3, 10, 20),
      utc(2026, 1, 3, 10, 35),
      utc(2026, 1, 3, 10, 50),
      utc(2026, 1, 3, 11, 5),
    ]);
    const random = new CronTrigger('*/5 * * * *', { jitter: 600, random: seededRandom(3) });
    const all = fires(random, 2000) as number[];
    for (let i = 1; i < all.length; i++) expect(all[i]!).toBeGreaterThan(all[i - 1]!);
  });

  it('jitter stays in bounds over many occurrences with Math.random', () => {
    const trigger = new CronTrigger('0 */6 * * *', { jitter: 3600 });
    const all = fires(trigger, 2000) as number[];
    all.forEach((t, k) => {
      const instant = utc(2026, 1, 3, 12) + k * 6 * HOUR;
      expect(t).toBeGreaterThanOrEqual(instant);
      expect(t).toBeLessThanOrEqual(instant + HOUR);
    });
    expect(all.length).toBe(2000);
    expect(all.at(-1)! - all[0]!).toBeGreaterThan(499 * DAY);
  });
});

describe('CronTrigger: bad input', () => {
  it('a bad expression throws CronSyntaxError naming the field', () => {
    let error: unknown;
    try {
      new CronTrigger('0 0 32 * *');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CronSyntaxError);
    expect((error as CronSyntaxError).field).toBe('day-of-month');
    expect(() => new CronTrigger('0 0 30 2 *')).toThrow(CronSyntaxError);
    expect(() => new CronTrigger('not cron')).toThrow(CronSyntaxError);
  });

  it('an unknown zone throws InvalidTimezoneError', () => {
    expect(() => new CronTrigger('0 9 * * *', { timezone: 'Mars/Olympus_Mons' })).toThrow(
      InvalidTimezoneError,
    );
  });

  it('bad jitter, expression type and random are TriggerErrors', () => {
    expect(() => new CronTrigger('0 9 * * *', { jitter: -1 })).toThrow(
      'CronTrigger: jitter: must be a finite number >= 0, got -1',
    );
    expect(() => new CronTrigger('0 9 * * *', { jitter: Number.NaN })).toThrow(TriggerError);
    expect(() => new CronTrigger('0 9 * * *', { jitter: Number.POSITIVE_INFINITY })).toThrow(/got Infinity/);
    expect(() => new CronTrigger(5 as unknown as string)).toThrow(
      'CronTrigger: expression: must be a string, got 5',
    );
    expect(() => new CronTrigger('* * * * *', { random: 'x' as unknown as () => number })).toThrow(
      TriggerError,
    );
  });
});
