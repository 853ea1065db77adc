// Conformance: plain values, lists, ranges and steps (five fields, UTC).
// Reference 2026-03-11T10:17:23Z is a Wednesday; March 2026 starts on a Sunday.
import { describe, expect, it } from 'vitest';
import { CronParser } from '../../src/cron/index.js';
import { at, checkCases, iso, REF } from './support.js';

checkCases('values', [
  { expr: '0 12 * * *', after: REF, expected: ['2026-03-11T12:00Z', '2026-03-12T12:00Z'] },
  {
    expr: '17 10 * * *',
    after: REF,
    why: 'today 10:17:00 is 23 s before REF, so the first is tomorrow',
    expected: ['2026-03-12T10:17Z', '2026-03-13T10:17Z'],
  },
  {
    expr: '0 * * * *',
    after: '2026-03-11T11:00Z',
    why: 'strictly after: an instant that itself fires is not returned',
    expected: ['2026-03-11T12:00Z'],
  },
  {
    expr: '0 * * * *',
    after: '2026-03-11T10:59:59.999Z',
    expected: ['2026-03-11T11:00Z'],
  },
  {
    expr: '59 23 31 12 *',
    after: REF,
    expected: ['2026-12-31T23:59Z', '2027-12-31T23:59Z'],
  },
  {
    expr: '0 0 29 2 *',
    after: REF,
    why: 'leap days only',
    expected: ['2028-02-29T00:00Z', '2032-02-29T00:00Z', '2036-02-29T00:00Z'],
  },
  {
    expr: '0 0 29 2 *',
    after: '2096-03-01T00:00Z',
    why: '2100 is not a leap year (divisible by 100, not by 400)',
    expected: ['2104-02-29T00:00Z'],
  },
  {
    expr: '0 0 31 * *',
    after: REF,
    why: 'months without a 31st are skipped',
    expected: ['2026-03-31T00:00Z', '2026-05-31T00:00Z', '2026-07-31T00:00Z', '2026-08-31T00:00Z'],
  },
  {
    expr: '0 0 30 * *',
    after: '2026-01-31T00:00Z',
    why: 'February has no 30th',
    expected: ['2026-03-30T00:00Z'],
  },
]);

checkCases('lists', [
  {
    expr: '5,10,55 * * * *',
    after: REF,
    expected: ['2026-03-11T10:55Z', '2026-03-11T11:05Z', '2026-03-11T11:10Z'],
  },
  {
    expr: '55,5,10 * * * *',
    after: REF,
    why: 'list order does not matter',
    expected: ['2026-03-11T10:55Z', '2026-03-11T11:05Z', '2026-03-11T11:10Z'],
  },
  {
    expr: '0,30-32,*/20 1 * * *',
    after: REF,
    why: 'minutes {0, 20, 30, 31, 32, 40} at 01:xx',
    expected: [
      '2026-03-12T01:00Z',
      '2026-03-12T01:20Z',
      '2026-03-12T01:30Z',
      '2026-03-12T01:31Z',
      '2026-03-12T01:32Z',
      '2026-03-12T01:40Z',
      '2026-03-13T01:00Z',
    ],
  },
  {
    expr: '0 0 1,15 3,6 *',
    after: REF,
    expected: ['2026-03-15T00:00Z', '2026-06-01T00:00Z', '2026-06-15T00:00Z', '2027-03-01T00:00Z'],
  },
]);

checkCases('ranges', [
  {
    expr: '50-52 * * * *',
    after: REF,
    expected: ['2026-03-11T10:50Z', '2026-03-11T10:51Z', '2026-03-11T10:52Z', '2026-03-11T11:50Z'],
  },
  {
    expr: '0 22-23 * * *',
    after: REF,
    expected: ['2026-03-11T22:00Z', '2026-03-11T23:00Z', '2026-03-12T22:00Z'],
  },
  {
    expr: '0 0 28-31 2 *',
    after: REF,
    why: 'February 2027 has 28 days; 2028 has 29',
    expected: ['2027-02-28T00:00Z', '2028-02-28T00:00Z', '2028-02-29T00:00Z', '2029-02-28T00:00Z'],
  },
  {
    expr: '0 0 1 10-12 *',
    after: REF,
    expected: ['2026-10-01T00:00Z', '2026-11-01T00:00Z', '2026-12-01T00:00Z', '2027-10-01T00:00Z'],
  },
  { expr: '0-59 * * * *', after: REF, expected: ['2026-03-11T10:18Z', '2026-03-11T10:19Z'] },
  { expr: '0 0-23 * * *', after: REF, expected: ['2026-03-11T11:00Z', '2026-03-11T12:00Z'] },
]);

checkCases('steps', [
  {
    expr: '10/20 * * * *',
    after: REF,
    why: 'N/S: from 10 every 20 to the end of the field: 10, 30, 50',
    expected: ['2026-03-11T10:30Z', '2026-03-11T10:50Z', '2026-03-11T11:10Z'],
  },
  {
    expr: '0 0 1 1/4 *',
    after: REF,
    why: 'months 1, 5, 9',
    expected: ['2026-05-01T00:00Z', '2026-09-01T00:00Z', '2027-01-01T00:00Z'],
  },
  {
    expr: '0-10/5 12 * * *',
    after: REF,
    expected: ['2026-03-11T12:00Z', '2026-03-11T12:05Z', '2026-03-11T12:10Z', '2026-03-12T12:00Z'],
  },
  {
    expr: '0 0 1 */3 *',
    after: REF,
    why: 'months 1, 4, 7, 10 (a step counts from the field minimum, 1 for months)',
    expected: ['2026-04-01T00:00Z', '2026-07-01T00:00Z', '2026-10-01T00:00Z', '2027-01-01T00:00Z'],
  },
  {
    expr: '0 0 */10 * *',
    after: REF,
    why: 'days 1, 11, 21, 31 (counting from 1, not 0)',
    expected: ['2026-03-21T00:00Z', '2026-03-31T00:00Z', '2026-04-01T00:00Z', '2026-04-11T00:00Z'],
  },
  {
    expr: '*/7 * * * *',
    after: '2026-03-11T10:50Z',
    why: 'minutes 0, 7, ..., 56: the step restarts at 0 each hour (56 -> 00, not 03)',
    expected: ['2026-03-11T10:56Z', '2026-03-11T11:00Z', '2026-03-11T11:07Z'],
  },
  {
    expr: '0 */5 * * *',
    after: '2026-03-11T20:30Z',
    why: 'hours 0, 5, 10, 15, 20',
    expected: ['2026-03-12T00:00Z', '2026-03-12T05:00Z'],
  },
  {
    expr: '*/59 * * * *',
    after: REF,
    why: 'minutes 0 and 59',
    expected: ['2026-03-11T10:59Z', '2026-03-11T11:00Z', '2026-03-11T11:59Z'],
  },
]);

checkCases('before 1970 (negative epoch milliseconds)', [
  {
    expr: '*/15 * * * *',
    after: '1969-12-31T23:59:59.999Z',
    expected: ['1970-01-01T00:00Z', '1970-01-01T00:15Z'],
  },
  {
    expr: '*/15 * * * *',
    after: '1969-12-31T23:31:00Z',
    expected: ['1969-12-31T23:45Z', '1970-01-01T00:00Z'],
  },
  { expr: '0 0 1 1 *', after: '1969-07-20T20:17:40Z', expected: ['1970-01-01T00:00Z', '1971-01-01T00:00Z'] },
  { expr: '30 20 * * *', after: '1969-07-19T21:00Z', expected: ['1969-07-20T20:30Z', '1969-07-21T20:30Z'] },
  {
    expr: '0 9 * * *',
    options: { timezone: 'America/New_York' },
    after: '1969-07-20T00:00Z',
    why: 'EDT (UTC-4) in July 1969',
    expected: ['1969-07-20T13:00Z', '1969-07-21T13:00Z'],
  },
  {
    expr: '* * * * * *',
    after: '1969-12-31T23:59:58.500Z',
    expected: ['1969-12-31T23:59:59Z', '1970-01-01T00:00:00Z'],
  },
]);

describe('whitespace', () => {
  it('accepts leading, trailing and repeated spaces and tabs between fields', () => {
    const p = new CronParser('  0   12\t* *  * ');
    expect(iso(p.next(at(REF)))).toBe('2026-03-11T12:00Z');
  });
});
