// `dst.repeated` is the name of the fall-back rule (a schedule's `overlap` is another idea); its earlier
// name `dst.overlap` is read as it, in code and in stored trigger JSON, and written back as `repeated`;
// both given and different are refused, naming both.
import { describe, expect, it } from 'vitest';
import { CronParser } from '../../src/cron/cron-parser.js';
import { CronSyntaxError } from '../../src/errors/cron-syntax-error.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { triggerFromJSON } from '../../src/triggers/trigger-from-json.js';

// 2026-10-25: London falls back at 02:00 BST to 01:00 GMT, so 01:30 happens twice
const DAY = Date.UTC(2026, 9, 24, 22, 0);
const halfPastOne = (dst: object) =>
  new CronParser('30 1 * * *', { timezone: 'Europe/London', dst }).nextN(2, DAY) as number[];

describe('dst.repeated', () => {
  it('the earlier name dst.overlap resolves to the same rule as dst.repeated, both ways', () => {
    for (const rule of ['first', 'both'] as const) {
      expect(halfPastOne({ overlap: rule })).toEqual(halfPastOne({ repeated: rule }));
      expect(new CronParser('30 1 * * *', { dst: { overlap: rule } }).repeated).toBe(rule);
    }
    // the rules differ on that day: both passes of 01:30, or the first only (then the next day)
    const both = halfPastOne({ repeated: 'both' });
    expect(both[1]! - both[0]!).toBe(3_600_000);
    expect(halfPastOne({ repeated: 'first' })[1]! - both[0]!).toBeGreaterThan(3_600_000);
  });

  it('a trigger given the earlier name writes the new one; stored JSON with the earlier name reads', () => {
    const given = new CronTrigger('30 1 * * *', { timezone: 'Europe/London', dst: { overlap: 'both' } });
    expect(given.toJSON().dst).toEqual({ repeated: 'both' });
    const stored = triggerFromJSON({
      type: 'cron',
      expression: '30 1 * * *',
      timezone: 'Europe/London',
      dst: { gap: 'skip', overlap: 'both' },
    });
    expect(stored.toJSON()).toEqual({
      type: 'cron',
      expression: '30 1 * * *',
      timezone: 'Europe/London',
      dst: { gap: 'skip', repeated: 'both' },
    });
    expect([stored.nextFire(null, DAY), given.nextFire(null, DAY)]).toEqual([
      halfPastOne({ repeated: 'both' })[0],
      halfPastOne({ repeated: 'both' })[0],
    ]);
  });

  it('both names given and different are refused, naming both; a bad value names dst.repeated', () => {
    const both = () => new CronParser('30 1 * * *', { dst: { repeated: 'first', overlap: 'both' } });
    expect(both).toThrow(CronSyntaxError);
    expect(both).toThrow(
      'dst.overlap (the earlier name of dst.repeated) "both" contradicts dst.repeated "first"',
    );
    expect(
      () => new CronParser('30 1 * * *', { dst: { repeated: 'first', overlap: 'first' } }),
    ).not.toThrow();
    expect(() => new CronParser('30 1 * * *', { dst: { repeated: 'twice' as 'both' } })).toThrow(
      "dst.repeated must be 'first' or 'both', got \"twice\"",
    );
    expect(() =>
      triggerFromJSON({ type: 'cron', expression: '* * * * *', dst: { repeated: 'twice' } }),
    ).toThrow(/dst\.repeated/);
  });
});
