// Conformance: day-of-month specials L, L-n, LW and NW (nearest weekday, never crossing the month).
// 2026 calendar (weekday of the 1st): Jan Thu, Feb Sun, Mar Sun, Apr Wed, May Fri, Jun Mon, Jul Wed,
// Aug Sat, Sep Tue, Oct Thu, Nov Sun, Dec Tue.
import { checkCases, REF } from './support.js';

checkCases('L: last day of the month', [
  {
    expr: '0 0 L * *',
    after: '2026-01-15T00:00Z',
    expected: ['2026-01-31T00:00Z', '2026-02-28T00:00Z', '2026-03-31T00:00Z', '2026-04-30T00:00Z'],
  },
  {
    expr: '0 0 L * *',
    after: '2028-02-01T00:00Z',
    why: '2028 is a leap year',
    expected: ['2028-02-29T00:00Z', '2028-03-31T00:00Z'],
  },
  {
    expr: '30 23 L * *',
    after: REF,
    expected: ['2026-03-31T23:30Z', '2026-04-30T23:30Z'],
  },
  {
    expr: '0 0 L * *',
    options: { timezone: 'America/New_York' },
    after: REF,
    why: 'the last day of the month in New York (EDT, UTC-4)',
    expected: ['2026-03-31T04:00Z', '2026-04-30T04:00Z'],
  },
]);

checkCases('L-n: n days before the last day', [
  {
    expr: '0 0 L-1 * *',
    after: '2026-01-15T00:00Z',
    expected: ['2026-01-30T00:00Z', '2026-02-27T00:00Z', '2026-03-30T00:00Z', '2026-04-29T00:00Z'],
  },
  {
    expr: '0 0 L-3 2 *',
    after: REF,
    why: 'Feb 2027 has 28 days -> 25; Feb 2028 has 29 -> 26',
    expected: ['2027-02-25T00:00Z', '2028-02-26T00:00Z', '2029-02-25T00:00Z'],
  },
]);

checkCases('LW: last weekday of the month', [
  {
    expr: '0 0 LW * *',
    after: '2026-01-01T00:00Z',
    why: 'Jan 31 Sat -> Fri 30; Feb 28 Sat -> Fri 27; Mar 31 Tue; Apr 30 Thu; May 31 Sun -> Fri 29; Jun 30 Tue',
    expected: [
      '2026-01-30T00:00Z',
      '2026-02-27T00:00Z',
      '2026-03-31T00:00Z',
      '2026-04-30T00:00Z',
      '2026-05-29T00:00Z',
      '2026-06-30T00:00Z',
    ],
  },
]);

checkCases('NW: nearest weekday', [
  {
    expr: '0 0 1W * *',
    after: '2026-07-15T00:00Z',
    why: 'Aug 1 is a Saturday: not Fri Jul 31 (other month) but Mon Aug 3; Nov 1 is a Sunday -> Mon Nov 2',
    expected: [
      '2026-08-03T00:00Z',
      '2026-09-01T00:00Z',
      '2026-10-01T00:00Z',
      '2026-11-02T00:00Z',
      '2026-12-01T00:00Z',
    ],
  },
  {
    expr: '0 0 31W * *',
    after: '2026-03-01T00:00Z',
    why:
      'Mar 31 Tue; April (30 days) none; May 31 Sun -> Fri 29 (not Jun 1); June none; Jul 31 Fri; ' +
      'Aug 31 Mon; September none; Oct 31 Sat -> Fri 30; November none; Dec 31 Thu',
    expected: [
      '2026-03-31T00:00Z',
      '2026-05-29T00:00Z',
      '2026-07-31T00:00Z',
      '2026-08-31T00:00Z',
      '2026-10-30T00:00Z',
      '2026-12-31T00:00Z',
    ],
  },
  {
    expr: '0 0 30W * *',
    after: '2026-05-01T00:00Z',
    why: 'May 30 Sat -> Fri 29; Aug 30 Sun -> Mon 31 (still August); Nov 30 Mon',
    expected: [
      '2026-05-29T00:00Z',
      '2026-06-30T00:00Z',
      '2026-07-30T00:00Z',
      '2026-08-31T00:00Z',
      '2026-09-30T00:00Z',
      '2026-10-30T00:00Z',
      '2026-11-30T00:00Z',
    ],
  },
  {
    expr: '0 0 30W * *',
    after: '2027-01-31T00:00Z',
    why: 'February has no 30th: no fire that month',
    expected: ['2027-03-30T00:00Z'],
  },
  {
    expr: '0 0 14W * *',
    after: REF,
    why: 'Mar 14 is a Saturday -> Fri 13',
    expected: ['2026-03-13T00:00Z', '2026-04-14T00:00Z'],
  },
  {
    expr: '0 0 29W 2 *',
    after: REF,
    why: 'only leap years have Feb 29: 2028-02-29 is a Tuesday; 2032-02-29 is a Sunday and the last day -> Fri 27',
    expected: ['2028-02-29T00:00Z', '2032-02-27T00:00Z'],
  },
]);

checkCases('lists mixing specials and values', [
  {
    expr: '0 0 1,L * *',
    after: REF,
    expected: ['2026-03-31T00:00Z', '2026-04-01T00:00Z', '2026-04-30T00:00Z', '2026-05-01T00:00Z'],
  },
  {
    expr: '0 0 1W,15W * *',
    after: REF,
    why: 'Mar 15 Sun -> 16; Apr 1 Wed; Apr 15 Wed; May 1 Fri; May 15 Fri',
    expected: [
      '2026-03-16T00:00Z',
      '2026-04-01T00:00Z',
      '2026-04-15T00:00Z',
      '2026-05-01T00:00Z',
      '2026-05-15T00:00Z',
    ],
  },
  {
    expr: '0 0 LW,15 * *',
    after: REF,
    expected: ['2026-03-15T00:00Z', '2026-03-31T00:00Z', '2026-04-15T00:00Z', '2026-04-30T00:00Z'],
  },
  {
    expr: '0 0 * * 1#3,5L',
    after: REF,
    why: 'third Monday or last Friday: Mar 16, Mar 27, Apr 20, Apr 24',
    expected: ['2026-03-16T00:00Z', '2026-03-27T00:00Z', '2026-04-20T00:00Z', '2026-04-24T00:00Z'],
  },
]);
