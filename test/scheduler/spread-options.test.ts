// Deterministic spread (pure parts and option checks): the offset from the id, the window's rules, DST.
import { describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import { formatSpread, parseSpreadMs, spreadFireAt, spreadOffsetMs } from '../../src/store/forms/spread.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { testEnv } from './helpers.js';

describe('spread offsets', () => {
  it('are the same for the same id and window, inside the window, and differ between ids', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `tenant-${i}`);
    const offsets = ids.map((id) => spreadOffsetMs(id, 30_000));
    expect(ids.map((id) => spreadOffsetMs(id, 30_000))).toEqual(offsets);
    for (const o of offsets) {
      expect(Number.isInteger(o)).toBe(true);
      expect(o).toBeGreaterThanOrEqual(0);
      expect(o).toBeLessThan(30_000);
    }
    expect(new Set(offsets).size).toBeGreaterThan(1900);
    expect(spreadOffsetMs('a', undefined)).toBe(0);
  });

  it('reads durations and refuses what is not one', () => {
    expect(parseSpreadMs('10m')).toBe(600_000);
    expect(parseSpreadMs('30s')).toBe(30_000);
    expect(parseSpreadMs('250ms')).toBe(250);
    expect(parseSpreadMs(1500)).toBe(1500);
    expect(parseSpreadMs('10 minutes')).toBeUndefined();
    expect(parseSpreadMs('-5s')).toBeUndefined();
    expect(formatSpread(600_000)).toBe('10m');
    expect(formatSpread(1500)).toBe('1500ms');
  });

  it('keeps the nominal time as the identity across the spring-forward night (America/New_York)', () => {
    // 2027-03-14: 02:00 EST jumps to 03:00 EDT; 02:30 does not exist, a fixed-time cron shifts to 03:00
    const trigger = new CronTrigger('30 2 * * *', { timezone: 'America/New_York' });
    const before = Date.parse('2027-03-13T12:00:00Z');
    const nominal = trigger.nextFire(null, before) as number;
    expect(new Date(nominal).toISOString()).toBe('2027-03-14T07:00:00.000Z'); // 03:00 EDT
    const def = { id: 'nightly-report', spreadMs: 3_600_000 };
    const fires = spreadFireAt(def, nominal);
    expect(fires - nominal).toBe(spreadOffsetMs('nightly-report', 3_600_000));
    expect(fires - nominal).toBeLessThan(3_600_000);
    // the next occurrence is planned from the nominal time, not from when it fired
    const next = trigger.nextFire(nominal, nominal) as number;
    expect(new Date(next).toISOString()).toBe('2027-03-15T06:30:00.000Z'); // 02:30 EDT
    expect(spreadFireAt(def, next) - next).toBe(fires - nominal);
  });
});

describe('spread option', () => {
  const refused = (fn: () => unknown): ScheduleOptionsError => {
    try {
      fn();
    } catch (err) {
      if (err instanceof ScheduleOptionsError) return err;
      throw err;
    }
    throw new Error('not refused');
  };

  it('is refused, naming the field, when longer than the period or not a duration', async () => {
    const env = testEnv('spread-opts');
    try {
      const m = env.manager();
      const fn = () => {};
      const cron = (e: string, tz = 'UTC') => new CronTrigger(e, { timezone: tz });
      const long = refused(() =>
        m.schedule(fn, new IntervalTrigger(60), { id: 'a', name: 'a', spread: '2m' }),
      );
      expect(long.field).toBe('spread');
      expect(long.message).toMatch(/2m is longer than the trigger's shortest gap between occurrences \(1m\)/);
      const five = refused(() => m.schedule(fn, cron('*/5 * * * *'), { id: 'b', name: 'b', spread: '6m' }));
      expect(five.field).toBe('spread');
      const bad = refused(() => m.schedule(fn, cron('0 0 * * *'), { id: 'c', name: 'c', spread: 'soon' }));
      expect(bad.field).toBe('spread');
      expect(bad.message).toMatch(/must be a duration/);
      const zero = refused(() => m.schedule(fn, cron('0 0 * * *'), { id: 'd', name: 'd', spread: 0 }));
      expect(zero.field).toBe('spread');
      // a spread within the period is taken and stored; the DST night of Paris keeps a day's gap
      const ok = m.schedule(fn, cron('0 0 * * *', 'Europe/Paris'), { id: 'e', name: 'e', spread: '10m' });
      expect(ok.def.spreadMs).toBe(600_000);
      expect(ok.toJSON().spread?.offsetMs).toBe(spreadOffsetMs('e', 600_000));
    } finally {
      await env.cleanup();
    }
  });
});
