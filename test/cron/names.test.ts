// Conformance: month and weekday names (case-insensitive), nicknames and `?` (UTC).
// Reference 2026-03-11T10:17:23Z is a Wednesday.
import { describe, expect, it } from 'vitest';
import { CronParser } from '../../src/cron/index.js';
import { at, checkCases, REF } from './support.js';

checkCases('month names', [
  { expr: '0 0 1 JAN *', after: REF, expected: ['2027-01-01T00:00Z', '2028-01-01T00:00Z'] },
  { expr: '0 0 1 jan *', after: REF, expected: ['2027-01-01T00:00Z'] },
  { expr: '0 0 1 Jan *', after: REF, expected: ['2027-01-01T00:00Z'] },
  {
    expr: '0 0 1 jan-mar *',
    after: REF,
    expected: ['2027-01-01T00:00Z', '2027-02-01T00:00Z', '2027-03-01T00:00Z', '2028-01-01T00:00Z'],
  },
  {
    expr: '0 0 1 JUN,DEC *',
    after: REF,
    expected: ['2026-06-01T00:00Z', '2026-12-01T00:00Z', '2027-06-01T00:00Z'],
  },
  {
    expr: '0 0 1 FEB-DEC/3 *',
    after: REF,
    why: 'months 2, 5, 8, 11',
    expected: ['2026-05-01T00:00Z', '2026-08-01T00:00Z', '2026-11-01T00:00Z', '2027-02-01T00:00Z'],
  },
]);

checkCases('weekday names', [
  {
    expr: '0 0 * * MON-FRI',
    after: REF,
    expected: ['2026-03-12T00:00Z', '2026-03-13T00:00Z', '2026-03-16T00:00Z'],
  },
  {
    expr: '0 0 * * mon-fri',
    after: REF,
    expected: ['2026-03-12T00:00Z', '2026-03-13T00:00Z', '2026-03-16T00:00Z'],
  },
  {
    expr: '0 12 * * sat,SUN',
    after: REF,
    expected: ['2026-03-14T12:00Z', '2026-03-15T12:00Z', '2026-03-21T12:00Z'],
  },
  { expr: '0 0 * * Wed', after: REF, expected: ['2026-03-18T00:00Z', '2026-03-25T00:00Z'] },
  {
    expr: '0 0 * 4 tue',
    after: REF,
    why: 'April 2026 starts on a Wednesday: Tuesdays 7, 14, 21, 28',
    expected: ['2026-04-07T00:00Z', '2026-04-14T00:00Z', '2026-04-21T00:00Z', '2026-04-28T00:00Z'],
  },
]);

checkCases('nicknames', [
  { expr: '@yearly', after: REF, expected: ['2027-01-01T00:00Z', '2028-01-01T00:00Z'] },
  { expr: '@annually', after: REF, expected: ['2027-01-01T00:00Z', '2028-01-01T00:00Z'] },
  { expr: '@monthly', after: REF, expected: ['2026-04-01T00:00Z', '2026-05-01T00:00Z'] },
  {
    expr: '@weekly',
    after: REF,
    why: 'Sunday midnight',
    expected: ['2026-03-15T00:00Z', '2026-03-22T00:00Z'],
  },
  { expr: '@daily', after: REF, expected: ['2026-03-12T00:00Z', '2026-03-13T00:00Z'] },
  { expr: '@midnight', after: REF, expected: ['2026-03-12T00:00Z', '2026-03-13T00:00Z'] },
  { expr: '@hourly', after: REF, expected: ['2026-03-11T11:00Z', '2026-03-11T12:00Z'] },
  {
    expr: '@daily',
    options: { timezone: 'Asia/Kolkata' },
    after: REF,
    why: 'midnight at +05:30 is 18:30Z the day before',
    expected: ['2026-03-11T18:30Z', '2026-03-12T18:30Z'],
  },
]);

checkCases('question mark', [
  { expr: '0 0 ? * MON', after: REF, expected: ['2026-03-16T00:00Z', '2026-03-23T00:00Z'] },
  { expr: '0 0 15 * ?', after: REF, expected: ['2026-03-15T00:00Z', '2026-04-15T00:00Z'] },
  { expr: '0 0 ? * ?', after: REF, expected: ['2026-03-12T00:00Z', '2026-03-13T00:00Z'] },
  {
    expr: '0 ? * * *',
    after: REF,
    why: '`?` is `*` in any field',
    expected: ['2026-03-11T11:00Z', '2026-03-11T12:00Z'],
  },
]);

describe('names are equivalent to numbers', () => {
  const pairs: [string, string][] = [
    ['0 0 * * SUN', '0 0 * * 0'],
    ['0 0 * * sun', '0 0 * * 7'],
    ['0 0 * * MON-FRI', '0 0 * * 1-5'],
    ['0 0 1 JAN-DEC *', '0 0 1 * *'],
    ['0 0 1 mar,Sep *', '0 0 1 3,9 *'],
  ];
  for (const [named, numbered] of pairs) {
    it(`"${named}" fires like "${numbered}"`, () => {
      const a = new CronParser(named);
      const b = new CronParser(numbered);
      expect(a.nextN(12, at(REF))).toEqual(b.nextN(12, at(REF)));
    });
  }
});
