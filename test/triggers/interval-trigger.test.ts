import { describe, expect, it } from 'vitest';
import { TriggerError } from '../../src/errors/index.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { HOUR, MINUTE, seededRandom, utc } from './seeded-random.js';

// Saturday 2026-01-03 10:07:00.123 UTC.
const NOW = utc(2026, 1, 3, 10, 7) + 123;

function fires(trigger: IntervalTrigger, count: number, now = NOW): number[] {
  const out: number[] = [];
  let last: number | null = null;
  for (let i = 0; i < count; i++) {
    const next: number = trigger.nextFire(last, now);
    out.push(next);
    last = next;
  }
  return out;
}

describe('IntervalTrigger: the grid', () => {
  it('never fired: the first grid point strictly after now (anchor 0 = the epoch)', () => {
    expect(new IntervalTrigger(300).nextFire(null, NOW)).toBe(utc(2026, 1, 3, 10, 10));
    expect(new IntervalTrigger(3600).nextFire(null, NOW)).toBe(utc(2026, 1, 3, 11));
    // now exactly on a grid point: strictly after it.
    expect(new IntervalTrigger(300).nextFire(null, utc(2026, 1, 3, 10, 10))).toBe(utc(2026, 1, 3, 10, 15));
  });

  it('no drift over 10,000 fires: fire k is exactly first + k * period', () => {
    const trigger = new IntervalTrigger(61.5);
    const all = fires(trigger, 10_000);
    const first = all[0]!;
    expect(first).toBe(Math.ceil((NOW + 1) / 61_500) * 61_500);
    all.forEach((t, k) => {
      expect(t).toBe(first + k * 61_500);
    });
  });

  it('a late run does not move the grid: the next fire is the grid point after the one it ran for', () => {
    const trigger = new IntervalTrigger(300);
    // Planned 10:10, ran 37 s late.
    expect(trigger.nextFire(utc(2026, 1, 3, 10, 10, 37), NOW)).toBe(utc(2026, 1, 3, 10, 15));
    // A lastFire long ago gives the grid point after it (catching up is the scheduler's misfire policy).
    expect(trigger.nextFire(utc(2026, 1, 1, 0, 2), NOW)).toBe(utc(2026, 1, 1, 0, 5));
  });

  it('an interval of 0.1 s fires on a 100 ms grid', () => {
    const trigger = new IntervalTrigger(0.1);
    expect(trigger.periodMs).toBe(100);
    const all = fires(trigger, 1000);
    expect(all[0]).toBe(NOW - 23 + 100); // NOW ends in ...123 ms
    all.forEach((t, k) => {
      expect(t % 100).toBe(0);
      expect(t).toBe(all[0]! + k * 100);
    });
  });

  it('a fractional period is rounded to whole milliseconds once: 0.0333 s fires every 33 ms', () => {
    const all = fires(new IntervalTrigger(0.0333), 100);
    all.forEach((t, k) => {
      expect(t).toBe(all[0]! + k * 33);
    });
  });

  it('an anchor puts the grid where asked, before and after the anchor', () => {
    const anchor = utc(2026, 1, 1, 0, 30);
    const hourly = new IntervalTrigger(3600, { anchor });
    expect(hourly.nextFire(null, NOW)).toBe(utc(2026, 1, 3, 10, 30));
    expect(hourly.nextFire(utc(2025, 12, 31, 22, 30), NOW)).toBe(utc(2025, 12, 31, 23, 30));
    expect(hourly.nextFire(null, utc(2025, 6, 1, 4, 59))).toBe(utc(2025, 6, 1, 5, 30));
    const fromDate = new IntervalTrigger(3600, { anchor: new Date(anchor) });
    expect(fromDate.anchor).toBe(anchor);
    expect(fromDate.nextFire(null, NOW)).toBe(utc(2026, 1, 3, 10, 30));
  });
});

describe('IntervalTrigger: jitter', () => {
  it('no drift over 10,000 jittered fires: fire k is within [first + k * period, + jitter]', () => {
    const trigger = new IntervalTrigger(300, { jitter: 30, random: seededRandom(42) });
    const all = fires(trigger, 10_000);
    const firstPlanned = utc(2026, 1, 3, 10, 10);
    const offsets = all.map((t, k) => t - (firstPlanned + k * 300_000));
    for (const offset of offsets) {
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThanOrEqual(30_000);
      expect(Number.isInteger(offset)).toBe(true);
    }
    // The offsets really are spread over the window (seeded, so deterministic).
    expect(Math.min(...offsets)).toBeLessThan(1000);
    expect(Math.max(...offsets)).toBeGreaterThan(29_000);
    expect(new Set(offsets).size).toBeGreaterThan(5000);
  });

  it('stays in bounds with Math.random too', () => {
    const trigger = new IntervalTrigger(60, { jitter: 59.999 });
    const all = fires(trigger, 10_000);
    const firstPlanned = utc(2026, 1, 3, 10, 8);
    all.forEach((t, k) => {
      const planned = firstPlanned + k * MINUTE;
      expect(t).toBeGreaterThanOrEqual(planned);
      expect(t).toBeLessThanOrEqual(planned + 59_999);
    });
  });

  it('the extreme offsets (random at 0, near 1, and a misbehaving 1 or more) never drift', () => {
    const extremes = [0, 0.999_999_9, 1, 5, -3, Number.NaN];
    let i = 0;
    const trigger = new IntervalTrigger(10, {
      jitter: 9.999,
      random: () => extremes[i++ % extremes.length]!,
    });
    const all = fires(trigger, 600);
    const firstPlanned = utc(2026, 1, 3, 10, 7, 10);
    all.forEach((t, k) => {
      const planned = firstPlanned + k * 10_000;
      const expected = [0, 9999, 9999, 9999, 0, 0][k % extremes.length]!;
      expect(t).toBe(planned + expected);
    });
  });

  it('never fired with jitter: the first grid point after now, plus the offset', () => {
    const trigger = new IntervalTrigger(3600, { jitter: 600, random: () => 0.5 });
    expect(trigger.nextFire(null, NOW)).toBe(utc(2026, 1, 3, 11, 5));
    expect(trigger.nextFire(utc(2026, 1, 3, 11, 5), NOW)).toBe(utc(2026, 1, 3, 12, 5));
    expect(trigger.plannedAfter(utc(2026, 1, 3, 11, 5), NOW)).toBe(utc(2026, 1, 3, 12));
  });
});

describe('IntervalTrigger: bad input is a clear error at construction', () => {
  const cases: [string, () => unknown, string, RegExp][] = [
    ['NaN seconds', () => new IntervalTrigger(Number.NaN), 'seconds', /greater than 0, got NaN/],
    ['Infinity', () => new IntervalTrigger(Number.POSITIVE_INFINITY), 'seconds', /got Infinity/],
    ['-Infinity', () => new IntervalTrigger(Number.NEGATIVE_INFINITY), 'seconds', /got -Infinity/],
    ['zero', () => new IntervalTrigger(0), 'seconds', /greater than 0, got 0/],
    ['negative', () => new IntervalTrigger(-5), 'seconds', /greater than 0, got -5/],
    ['a string', () => new IntervalTrigger('5' as unknown as number), 'seconds', /got "5"/],
    ['under a millisecond', () => new IntervalTrigger(0.0004), 'seconds', /at least 0\.001.*got 0\.0004/],
    ['half a millisecond', () => new IntervalTrigger(0.0005), 'seconds', /at least 0\.001.*got 0\.0005/],
    [
      'just under a millisecond',
      () => new IntervalTrigger(0.00099),
      'seconds',
      /at least 0\.001.*got 0\.00099/,
    ],
    ['negative jitter', () => new IntervalTrigger(60, { jitter: -1 }), 'jitter', />= 0, got -1/],
    ['NaN jitter', () => new IntervalTrigger(60, { jitter: Number.NaN }), 'jitter', /got NaN/],
    ['jitter = seconds', () => new IntervalTrigger(60, { jitter: 60 }), 'jitter', /jitter 60 >= seconds 60/],
    [
      'jitter > seconds',
      () => new IntervalTrigger(300, { jitter: 301 }),
      'jitter',
      /jitter 301 >= seconds 300/,
    ],
    [
      'jitter equal to seconds once rounded to ms',
      () => new IntervalTrigger(1.0004, { jitter: 1.0001 }),
      'jitter',
      /jitter 1\.0001 >= seconds 1\.0004/,
    ],
    ['NaN anchor', () => new IntervalTrigger(60, { anchor: Number.NaN }), 'anchor', /got NaN/],
    [
      'invalid Date anchor',
      () => new IntervalTrigger(60, { anchor: new Date('nope') }),
      'anchor',
      /got Date\(Invalid\)/,
    ],
    [
      'random not a function',
      () => new IntervalTrigger(60, { random: 4 as unknown as () => number }),
      'random',
      /must be a function/,
    ],
  ];
  for (const [name, make, field, message] of cases) {
    it(name, () => {
      let error: unknown;
      try {
        make();
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(TriggerError);
      expect((error as TriggerError).trigger).toBe('IntervalTrigger');
      expect((error as TriggerError).field).toBe(field);
      expect((error as TriggerError).message).toMatch(message);
      expect((error as TriggerError).message.startsWith(`IntervalTrigger: ${field}: `)).toBe(true);
    });
  }

  it('the smallest valid values work', () => {
    expect(new IntervalTrigger(0.001).periodMs).toBe(1);
    expect(new IntervalTrigger(60, { jitter: 59.999 }).jitterMs).toBe(59_999);
    expect(new IntervalTrigger(7200, { anchor: -HOUR }).nextFire(null, 0)).toBe(HOUR);
  });
});
