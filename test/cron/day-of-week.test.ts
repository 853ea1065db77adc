// Conformance: day-of-week 0-7 (0 and 7 are Sunday), ranges to 7, N#M and NL.
// 2026 calendar (weekday of the 1st): Feb Sun, Mar Sun, Apr Wed, May Fri, Jun Mon, Jul Wed, Aug Sat,
// Sep Tue, Oct Thu. Reference 2026-03-11T10:17:23Z is a Wednesday.
import { checkCases, REF } from './support.js';

checkCases('Sunday is 0 and 7', [
  {
    expr: '0 0 * * 0',
    after: REF,
    expected: ['2026-03-15T00:00Z', '2026-03-22T00:00Z', '2026-03-29T00:00Z'],
  },
  {
    expr: '0 0 * * 7',
    after: REF,
    expected: ['2026-03-15T00:00Z', '2026-03-22T00:00Z', '2026-03-29T00:00Z'],
  },
  {
    expr: '0 0 * * 5-7',
    after: REF,
    why: 'Friday to Sunday',
    expected: ['2026-03-13T00:00Z', '2026-03-14T00:00Z', '2026-03-15T00:00Z', '2026-03-20T00:00Z'],
  },
  { expr: '0 0 * * 0,7', after: REF, expected: ['2026-03-15T00:00Z', '2026-03-22T00:00Z'] },
  { expr: '0 0 * * 0-6', after: REF, expected: ['2026-03-12T00:00Z', '2026-03-13T00:00Z'] },
  {
    expr: '0 0 * * */2',
    after: REF,
    why: 'Sun, Tue, Thu, Sat',
    expected: ['2026-03-12T00:00Z', '2026-03-14T00:00Z', '2026-03-15T00:00Z', '2026-03-17T00:00Z'],
  },
]);

checkCases('N#M: the Mth weekday N of the month', [
  {
    expr: '0 0 * * 1#1',
    after: REF,
    expected: ['2026-04-06T00:00Z', '2026-05-04T00:00Z', '2026-06-01T00:00Z'],
  },
  {
    expr: '0 0 * * 3#1',
    after: REF,
    why: 'first Wednesday; Apr 1 is one',
    expected: ['2026-04-01T00:00Z', '2026-05-06T00:00Z', '2026-06-03T00:00Z'],
  },
  {
    expr: '0 0 * * 0#2',
    after: REF,
    why: 'second Sunday: Mar 8 is past; Apr 12, May 10, Jun 14',
    expected: ['2026-04-12T00:00Z', '2026-05-10T00:00Z', '2026-06-14T00:00Z'],
  },
  {
    expr: '0 0 * * 7#2',
    after: REF,
    expected: ['2026-04-12T00:00Z', '2026-05-10T00:00Z', '2026-06-14T00:00Z'],
  },
  {
    expr: '0 0 * * 6#4',
    after: REF,
    expected: ['2026-03-28T00:00Z', '2026-04-25T00:00Z', '2026-05-23T00:00Z'],
  },
  {
    expr: '0 0 * * 5#5',
    after: REF,
    why: 'months with five Fridays: not Mar/Apr (four), May 29, not Jun, Jul 31, not Aug/Sep, Oct 30',
    expected: ['2026-05-29T00:00Z', '2026-07-31T00:00Z', '2026-10-30T00:00Z'],
  },
  {
    expr: '0 0 * * 2#5',
    after: REF,
    why: 'fifth Tuesday: Mar 31, then Jun 30',
    expected: ['2026-03-31T00:00Z', '2026-06-30T00:00Z'],
  },
  {
    expr: '0 0 * 2 5#5',
    after: REF,
    why: 'a fifth Friday in February needs Feb 1 on a Friday in a leap year: 2036, then 2064',
    expected: ['2036-02-29T00:00Z', '2064-02-29T00:00Z'],
  },
  {
    expr: '30 9 * * 1#3',
    options: { timezone: 'Europe/London' },
    after: REF,
    why: 'Mon Mar 16 09:30 GMT = 09:30Z; Mon Apr 20 09:30 BST = 08:30Z',
    expected: ['2026-03-16T09:30Z', '2026-04-20T08:30Z'],
  },
]);

checkCases('NL: the last weekday N of the month', [
  {
    expr: '0 0 * * 5L',
    after: REF,
    expected: ['2026-03-27T00:00Z', '2026-04-24T00:00Z', '2026-05-29T00:00Z'],
  },
  {
    expr: '0 0 * * 7L',
    after: REF,
    why: 'last Sunday',
    expected: ['2026-03-29T00:00Z', '2026-04-26T00:00Z', '2026-05-31T00:00Z'],
  },
  {
    expr: '0 0 * * 0L',
    after: REF,
    expected: ['2026-03-29T00:00Z', '2026-04-26T00:00Z', '2026-05-31T00:00Z'],
  },
  {
    expr: '0 0 * * 1L',
    after: '2026-02-01T00:00Z',
    expected: ['2026-02-23T00:00Z', '2026-03-30T00:00Z', '2026-04-27T00:00Z'],
  },
]);
