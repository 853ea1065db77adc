// Conformance: how day-of-month and day-of-week combine.
// Vixie rule: both restricted -> a day matches if EITHER matches; a field that starts with `*` or `?`
// counts as unrestricted, and then both must match (AND); `dayMatch: 'and'` always uses AND.
// 2026 calendar (weekday of the 1st): Mar Sun, Apr Wed, May Fri, Jun Mon, Jul Wed, Aug Sat, Sep Tue,
// Oct Thu, Nov Sun, Dec Tue; 2027: Jan Fri, Feb Mon, Mar Mon, Apr Thu, May Sat, Jun Tue, Jul Thu, Aug Sun.
import { checkCases, REF } from './support.js';

checkCases('Vixie OR: both day fields restricted', [
  {
    expr: '0 0 13 * 5',
    after: REF,
    why: 'the 13th OR any Friday',
    expected: [
      '2026-03-13T00:00Z',
      '2026-03-20T00:00Z',
      '2026-03-27T00:00Z',
      '2026-04-03T00:00Z',
      '2026-04-10T00:00Z',
      '2026-04-13T00:00Z',
      '2026-04-17T00:00Z',
    ],
  },
  {
    expr: '0 0 1,15 * 1',
    after: REF,
    why: 'the 1st, the 15th OR any Monday',
    expected: [
      '2026-03-15T00:00Z',
      '2026-03-16T00:00Z',
      '2026-03-23T00:00Z',
      '2026-03-30T00:00Z',
      '2026-04-01T00:00Z',
      '2026-04-06T00:00Z',
      '2026-04-13T00:00Z',
      '2026-04-15T00:00Z',
    ],
  },
  {
    expr: '0 0 L * 1',
    after: REF,
    why: 'the last day OR any Monday',
    expected: [
      '2026-03-16T00:00Z',
      '2026-03-23T00:00Z',
      '2026-03-30T00:00Z',
      '2026-03-31T00:00Z',
      '2026-04-06T00:00Z',
    ],
  },
  {
    expr: '0 0 1 * 5#2',
    after: REF,
    why: 'the 1st OR the second Friday: Apr 1, Apr 10, May 1, May 8',
    expected: [
      '2026-03-13T00:00Z',
      '2026-04-01T00:00Z',
      '2026-04-10T00:00Z',
      '2026-05-01T00:00Z',
      '2026-05-08T00:00Z',
    ],
  },
  {
    expr: '0 0 15W * 0L',
    after: REF,
    why: 'the weekday nearest the 15th (Mar 16) OR the last Sunday (Mar 29)',
    expected: ['2026-03-16T00:00Z', '2026-03-29T00:00Z', '2026-04-15T00:00Z', '2026-04-26T00:00Z'],
  },
]);

checkCases('a field starting with * or ? is unrestricted: AND', [
  {
    expr: '0 0 */2 * 5',
    after: REF,
    why: 'odd days (1,3,...) that are Fridays: Mar 13, Mar 27, Apr 3, Apr 17 (not Mar 20, Apr 10)',
    expected: ['2026-03-13T00:00Z', '2026-03-27T00:00Z', '2026-04-03T00:00Z', '2026-04-17T00:00Z'],
  },
  {
    expr: '0 0 1 * */2',
    after: REF,
    why: 'the 1st when it is Sun/Tue/Thu/Sat: Apr 1 Wed no, May Fri no, Jun Mon no, Jul Wed no, Aug 1 Sat',
    expected: ['2026-08-01T00:00Z', '2026-09-01T00:00Z', '2026-10-01T00:00Z', '2026-11-01T00:00Z'],
  },
  {
    expr: '0 0 ? * 5',
    after: REF,
    expected: ['2026-03-13T00:00Z', '2026-03-20T00:00Z', '2026-03-27T00:00Z'],
  },
  { expr: '0 0 13 * ?', after: REF, expected: ['2026-03-13T00:00Z', '2026-04-13T00:00Z'] },
  { expr: '0 0 * * 5', after: REF, expected: ['2026-03-13T00:00Z', '2026-03-20T00:00Z'] },
  { expr: '0 0 13 * *', after: REF, expected: ['2026-03-13T00:00Z', '2026-04-13T00:00Z'] },
]);

checkCases("dayMatch: 'and'", [
  {
    expr: '0 0 13 * 5',
    options: { dayMatch: 'and' },
    after: REF,
    why: 'Friday the 13th: Mar 2026, Nov 2026, Aug 2027',
    expected: ['2026-03-13T00:00Z', '2026-11-13T00:00Z', '2027-08-13T00:00Z'],
  },
  {
    expr: '0 0 1,15 * 1',
    options: { dayMatch: 'and' },
    after: REF,
    why: 'a 1st or 15th that is a Monday: Jun 1, Jun 15 2026, then Feb 1 2027',
    expected: ['2026-06-01T00:00Z', '2026-06-15T00:00Z', '2027-02-01T00:00Z'],
  },
  {
    expr: '0 0 L * 5',
    options: { dayMatch: 'and' },
    after: REF,
    why: 'the last day when it is a Friday: Jul 31 2026, Apr 30 2027',
    expected: ['2026-07-31T00:00Z', '2027-04-30T00:00Z'],
  },
  {
    expr: '0 0 * * 5',
    options: { dayMatch: 'and' },
    after: REF,
    expected: ['2026-03-13T00:00Z', '2026-03-20T00:00Z'],
  },
  {
    expr: '0 0 */2 * 5',
    options: { dayMatch: 'and' },
    after: REF,
    expected: ['2026-03-13T00:00Z', '2026-03-27T00:00Z', '2026-04-03T00:00Z'],
  },
  {
    expr: '0 0 13 * 5',
    options: { dayMatch: 'or' },
    after: REF,
    why: "explicit 'or' is the default",
    expected: ['2026-03-13T00:00Z', '2026-03-20T00:00Z', '2026-03-27T00:00Z', '2026-04-03T00:00Z'],
  },
]);
