// Conformance: six fields (a leading seconds field).
// Reference 2026-03-11T10:17:23Z is a Wednesday.
import { describe, expect, it } from 'vitest';
import { CronParser } from '../../src/cron/index.js';
import { at, checkCases, iso, REF } from './support.js';

checkCases('seconds field', [
  {
    expr: '*/10 * * * * *',
    after: REF,
    expected: [
      '2026-03-11T10:17:30Z',
      '2026-03-11T10:17:40Z',
      '2026-03-11T10:17:50Z',
      '2026-03-11T10:18:00Z',
    ],
  },
  { expr: '30 * * * * *', after: REF, expected: ['2026-03-11T10:17:30Z', '2026-03-11T10:18:30Z'] },
  {
    expr: '* * * * * *',
    after: '2026-03-11T10:17:23.500Z',
    expected: ['2026-03-11T10:17:24Z', '2026-03-11T10:17:25Z', '2026-03-11T10:17:26Z'],
  },
  { expr: '0 0 12 * * *', after: REF, expected: ['2026-03-11T12:00:00Z', '2026-03-12T12:00:00Z'] },
  {
    expr: '15,45 30 9 * * 1-5',
    after: REF,
    expected: [
      '2026-03-12T09:30:15Z',
      '2026-03-12T09:30:45Z',
      '2026-03-13T09:30:15Z',
      '2026-03-13T09:30:45Z',
    ],
  },
  {
    expr: '0-5 0 0 1 1 *',
    after: REF,
    expected: [
      '2027-01-01T00:00:00Z',
      '2027-01-01T00:00:01Z',
      '2027-01-01T00:00:02Z',
      '2027-01-01T00:00:03Z',
      '2027-01-01T00:00:04Z',
      '2027-01-01T00:00:05Z',
      '2028-01-01T00:00:00Z',
    ],
  },
  { expr: '59 59 23 31 12 *', after: REF, expected: ['2026-12-31T23:59:59Z', '2027-12-31T23:59:59Z'] },
  {
    expr: '10/20 0 0 * * *',
    after: REF,
    why: 'seconds 10, 30, 50',
    expected: [
      '2026-03-12T00:00:10Z',
      '2026-03-12T00:00:30Z',
      '2026-03-12T00:00:50Z',
      '2026-03-13T00:00:10Z',
    ],
  },
  {
    expr: '30 0 9 * * *',
    options: { timezone: 'Asia/Kolkata' },
    after: REF,
    expected: ['2026-03-12T03:30:30Z', '2026-03-13T03:30:30Z'],
  },
  {
    expr: '5 0 0 L * *',
    after: REF,
    expected: ['2026-03-31T00:00:05Z', '2026-04-30T00:00:05Z'],
  },
]);

describe('five fields fire on second 0', () => {
  it('a five-field expression never fires at a non-zero second', () => {
    const p = new CronParser('* * * * *');
    expect(p.hasSeconds).toBe(false);
    expect(p.matches(at('2026-03-11T10:18:00Z'))).toBe(true);
    expect(p.matches(at('2026-03-11T10:18:30Z'))).toBe(false);
    expect(iso(p.next(at('2026-03-11T10:18:00Z')))).toBe('2026-03-11T10:19Z');
  });

  it('a six-field expression reports hasSeconds', () => {
    expect(new CronParser('0 * * * * *').hasSeconds).toBe(true);
  });

  it('results have no milliseconds whatever the input', () => {
    const p = new CronParser('*/7 * * * * *');
    for (const t of [at(REF) + 1, at(REF) + 999, at(REF) - 1]) {
      const n = p.next(t);
      expect(n).not.toBeNull();
      expect(n! % 1000).toBe(0);
      expect(n).toBeGreaterThan(t);
    }
  });
});
