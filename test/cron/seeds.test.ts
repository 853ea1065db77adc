// Every expression in the Sillo seeds' cron tables (000 sections 11.2-11.4, 12.2-12.6) and examples (001),
// with the next instants after the reference time worked out by hand.
//
// Reference: 2026-03-11T10:17:23Z, a Wednesday. Calendar used below (March 2026 starts on a Sunday):
//   Mar 1 Sun, Apr 1 Wed, May 1 Fri, Jun 1 Mon, Jul 1 Wed, Aug 1 Sat; 2027-01-01 is a Friday.
//   New York is on EDT (UTC-4) since 2026-03-08, so 09:00 there is 13:00Z.
import { checkCases, REF } from './support.js';

checkCases('seeds 11.2: common expressions (UTC)', [
  {
    expr: '* * * * *',
    after: REF,
    expected: ['2026-03-11T10:18Z', '2026-03-11T10:19Z', '2026-03-11T10:20Z'],
  },
  {
    expr: '0 * * * *',
    after: REF,
    expected: ['2026-03-11T11:00Z', '2026-03-11T12:00Z', '2026-03-11T13:00Z'],
  },
  {
    expr: '0 0 * * *',
    after: REF,
    expected: ['2026-03-12T00:00Z', '2026-03-13T00:00Z', '2026-03-14T00:00Z'],
  },
  {
    expr: '0 9 * * 1-5',
    after: REF,
    why: 'Wed 09:00 is past; Thu, Fri, then Mon and Tue (the weekend is skipped)',
    expected: ['2026-03-12T09:00Z', '2026-03-13T09:00Z', '2026-03-16T09:00Z', '2026-03-17T09:00Z'],
  },
  {
    expr: '*/15 * * * *',
    after: REF,
    expected: ['2026-03-11T10:30Z', '2026-03-11T10:45Z', '2026-03-11T11:00Z'],
  },
  {
    expr: '0 0 1 * *',
    after: REF,
    expected: ['2026-04-01T00:00Z', '2026-05-01T00:00Z', '2026-06-01T00:00Z'],
  },
  {
    expr: '0 0 * * 0',
    after: REF,
    why: 'Sundays of March 2026: 1, 8, 15, 22, 29',
    expected: ['2026-03-15T00:00Z', '2026-03-22T00:00Z', '2026-03-29T00:00Z', '2026-04-05T00:00Z'],
  },
  {
    expr: '0 9,17 * * *',
    after: REF,
    expected: ['2026-03-11T17:00Z', '2026-03-12T09:00Z', '2026-03-12T17:00Z'],
  },
  {
    expr: '0 0 1 1 *',
    after: REF,
    expected: ['2027-01-01T00:00Z', '2028-01-01T00:00Z', '2029-01-01T00:00Z'],
  },
  {
    expr: '5 4 * * 0',
    after: REF,
    expected: ['2026-03-15T04:05Z', '2026-03-22T04:05Z', '2026-03-29T04:05Z'],
  },
]);

checkCases('seeds 11.3: step expressions (UTC)', [
  {
    expr: '*/5 * * * *',
    after: REF,
    expected: ['2026-03-11T10:20Z', '2026-03-11T10:25Z', '2026-03-11T10:30Z'],
  },
  {
    expr: '0 */2 * * *',
    after: REF,
    why: 'even hours',
    expected: ['2026-03-11T12:00Z', '2026-03-11T14:00Z', '2026-03-11T16:00Z'],
  },
  {
    expr: '0 0 */3 * *',
    after: REF,
    why: 'days 1,4,...,28,31 of each month: restarts at the 1st of April after the 31st of March',
    expected: [
      '2026-03-13T00:00Z',
      '2026-03-16T00:00Z',
      '2026-03-19T00:00Z',
      '2026-03-22T00:00Z',
      '2026-03-25T00:00Z',
      '2026-03-28T00:00Z',
      '2026-03-31T00:00Z',
      '2026-04-01T00:00Z',
      '2026-04-04T00:00Z',
    ],
  },
  {
    expr: '1-30/5 * * * *',
    after: REF,
    why: 'minutes 1, 6, 11, 16, 21, 26',
    expected: ['2026-03-11T10:21Z', '2026-03-11T10:26Z', '2026-03-11T11:01Z', '2026-03-11T11:06Z'],
  },
  {
    expr: '0 9-17/2 * * *',
    after: REF,
    why: 'hours 9, 11, 13, 15, 17',
    expected: [
      '2026-03-11T11:00Z',
      '2026-03-11T13:00Z',
      '2026-03-11T15:00Z',
      '2026-03-11T17:00Z',
      '2026-03-12T09:00Z',
    ],
  },
]);

checkCases('seeds 11.4: special characters (UTC)', [
  {
    expr: '0 0 L * *',
    after: REF,
    expected: ['2026-03-31T00:00Z', '2026-04-30T00:00Z', '2026-05-31T00:00Z'],
  },
  {
    expr: '0 0 15W * *',
    after: REF,
    why: 'Mar 15 is a Sunday -> Mon 16; Apr 15 Wed; May 15 Fri; Jun 15 Mon; Jul 15 Wed; Aug 15 is a Saturday -> Fri 14',
    expected: [
      '2026-03-16T00:00Z',
      '2026-04-15T00:00Z',
      '2026-05-15T00:00Z',
      '2026-06-15T00:00Z',
      '2026-07-15T00:00Z',
      '2026-08-14T00:00Z',
    ],
  },
  {
    expr: '0 0 * * 1#3',
    after: REF,
    why: 'third Monday: Mar 16, Apr 20, May 18, Jun 15',
    expected: ['2026-03-16T00:00Z', '2026-04-20T00:00Z', '2026-05-18T00:00Z', '2026-06-15T00:00Z'],
  },
]);

checkCases('seeds 001 examples and 12.x compositions', [
  {
    expr: '0 9 * * 1-5',
    options: { timezone: 'America/New_York' },
    after: REF,
    why: 'REF is 06:17 EDT on Wednesday, so today 09:00 EDT = 13:00Z still comes',
    expected: ['2026-03-11T13:00Z', '2026-03-12T13:00Z', '2026-03-13T13:00Z', '2026-03-16T13:00Z'],
  },
  {
    expr: '0 9 * * *',
    options: { timezone: 'America/New_York' },
    after: REF,
    expected: ['2026-03-11T13:00Z', '2026-03-12T13:00Z', '2026-03-13T13:00Z'],
  },
  {
    expr: '0 9 * * 1-5',
    options: { timezone: 'America/New_York' },
    after: '2026-03-06T12:00Z',
    why: 'Fri Mar 6 09:00 EST = 14:00Z; Mon Mar 9 is after the switch: 09:00 EDT = 13:00Z',
    expected: ['2026-03-06T14:00Z', '2026-03-09T13:00Z'],
  },
  {
    expr: '30 8,17 * * *',
    after: REF,
    expected: ['2026-03-11T17:30Z', '2026-03-12T08:30Z', '2026-03-12T17:30Z'],
  },
  {
    expr: '0 8-18/2 * * 1-5',
    after: REF,
    why: 'hours 8, 10, ..., 18 on weekdays',
    expected: [
      '2026-03-11T12:00Z',
      '2026-03-11T14:00Z',
      '2026-03-11T16:00Z',
      '2026-03-11T18:00Z',
      '2026-03-12T08:00Z',
    ],
  },
  {
    expr: '0 8-18/2 * * 1-5',
    after: '2026-03-13T18:00Z',
    why: 'Friday 18:00 is the last of the week; next is Monday 08:00',
    expected: ['2026-03-16T08:00Z'],
  },
  {
    expr: '0 14 * * 0,6',
    after: REF,
    expected: ['2026-03-14T14:00Z', '2026-03-15T14:00Z', '2026-03-21T14:00Z', '2026-03-22T14:00Z'],
  },
  {
    expr: '*/30 * * * *',
    after: REF,
    expected: ['2026-03-11T10:30Z', '2026-03-11T11:00Z', '2026-03-11T11:30Z'],
  },
  { expr: '* * * * 1-5', after: REF, expected: ['2026-03-11T10:18Z', '2026-03-11T10:19Z'] },
  {
    expr: '* * * * 1-5',
    after: '2026-03-13T23:59:30Z',
    why: 'the last minute of Friday is past; the weekend is skipped',
    expected: ['2026-03-16T00:00Z', '2026-03-16T00:01Z'],
  },
]);
