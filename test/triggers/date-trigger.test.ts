import { describe, expect, it } from 'vitest';
import { TriggerError } from '../../src/errors/index.js';
import { DateTrigger } from '../../src/triggers/index.js';
import { utc } from './seeded-random.js';

const NOW = utc(2026, 1, 3, 10, 7);
const AT = utc(2027, 1, 1);

describe('DateTrigger', () => {
  it('fires once: at, then exhausted', () => {
    const trigger = new DateTrigger(AT);
    const fired: number[] = [];
    let last: number | null = null;
    for (let i = 0; i < 5; i++) {
      const next = trigger.nextFire(last, NOW);
      if (next === null) break;
      fired.push(next);
      last = next;
    }
    expect(fired).toEqual([AT]);
    expect(trigger.nextFire(AT, NOW)).toBeNull();
    expect(trigger.nextFire(AT + 1, AT + 2)).toBeNull();
  });

  it('answers at while it has not fired at or after it, even when at is in the past', () => {
    const past = new DateTrigger(utc(2026, 1, 1));
    expect(past.nextFire(null, NOW)).toBe(utc(2026, 1, 1));
    expect(past.nextFire(utc(2025, 12, 31), NOW)).toBe(utc(2026, 1, 1));
    expect(past.nextFire(utc(2026, 1, 1), NOW)).toBeNull();
  });

  it('accepts a Date', () => {
    const trigger = new DateTrigger(new Date('2027-01-01T00:00:00Z'));
    expect(trigger.at).toBe(AT);
    expect(trigger.nextFire(null, NOW)).toBe(AT);
  });

  for (const [name, value, shown] of [
    ['NaN', Number.NaN, 'NaN'],
    ['Infinity', Number.POSITIVE_INFINITY, 'Infinity'],
    ['-Infinity', Number.NEGATIVE_INFINITY, '-Infinity'],
    ['an invalid Date', new Date('never'), 'Date(Invalid)'],
    ['a string', '2027-01-01', '"2027-01-01"'],
  ] as const) {
    it(`rejects ${name} with a clear error`, () => {
      expect(() => new DateTrigger(value as number)).toThrow(TriggerError);
      expect(() => new DateTrigger(value as number)).toThrow(
        `DateTrigger: at: must be a finite epoch-ms number or a valid Date, got ${shown}`,
      );
    });
  }
});
