// DST in America/New_York, 2026.
// Spring forward 2026-03-08 07:00Z: 02:00 EST (UTC-5) -> 03:00 EDT (UTC-4); wall 02:00-02:59 never happens.
// Fall back 2026-11-01 06:00Z: 02:00 EDT -> 01:00 EST; wall 01:00-01:59 happens twice (05:xxZ, then 06:xxZ).
// Fixed-time (single second/minute/hour): a time in the gap runs at 07:00Z (03:00 EDT); a repeated time runs
// on the first pass only. Interval: a time in the gap is skipped; a repeated time runs on both passes.
import { checkCases } from './support.js';

const NY = 'America/New_York';

checkCases('New York spring forward, fixed-time', [
  {
    expr: '30 2 * * *',
    options: { timezone: NY },
    after: '2026-03-07T12:00Z',
    why: '02:30 on Mar 8 does not exist: shifted to the transition 07:00Z; then 02:30 EDT = 06:30Z',
    expected: ['2026-03-08T07:00Z', '2026-03-09T06:30Z', '2026-03-10T06:30Z'],
  },
  {
    expr: '30 2 * * *',
    options: { timezone: NY, dst: { gap: 'skip' } },
    after: '2026-03-07T12:00Z',
    expected: ['2026-03-09T06:30Z', '2026-03-10T06:30Z'],
  },
  {
    expr: '0 2 * * *',
    options: { timezone: NY },
    after: '2026-03-07T12:00Z',
    expected: ['2026-03-08T07:00Z', '2026-03-09T06:00Z'],
  },
  {
    expr: '15 30 2 * * *',
    options: { timezone: NY },
    after: '2026-03-07T12:00Z',
    why: 'six fields: still the transition instant itself, 07:00:00Z',
    expected: ['2026-03-08T07:00:00Z', '2026-03-09T06:30:15Z'],
  },
  {
    expr: '0 9 * * *',
    options: { timezone: NY },
    after: '2026-03-07T12:00Z',
    why: 'outside the gap only the offset changes: 09:00 EST = 14:00Z, 09:00 EDT = 13:00Z',
    expected: ['2026-03-07T14:00Z', '2026-03-08T13:00Z', '2026-03-09T13:00Z'],
  },
  {
    expr: '30 2 8 3 *',
    options: { timezone: NY },
    after: '2026-01-01T00:00Z',
    why: 'once a year, always in the gap in 2026; 2027 spring forward is Mar 14, so Mar 8 02:30 EST = 07:30Z',
    expected: ['2026-03-08T07:00Z', '2027-03-08T07:30Z'],
  },
]);

checkCases('New York spring forward, interval', [
  {
    expr: '30 * * * *',
    options: { timezone: NY },
    after: '2026-03-08T06:00Z',
    why: '01:30 EST = 06:30Z; 02:30 skipped; 03:30 EDT = 07:30Z',
    expected: ['2026-03-08T06:30Z', '2026-03-08T07:30Z', '2026-03-08T08:30Z'],
  },
  {
    expr: '30 * * * *',
    options: { timezone: NY, dst: { gap: 'shift' } },
    after: '2026-03-08T06:00Z',
    expected: ['2026-03-08T06:30Z', '2026-03-08T07:00Z', '2026-03-08T07:30Z'],
  },
  {
    expr: '*/30 * * * *',
    options: { timezone: NY },
    after: '2026-03-08T06:00Z',
    expected: ['2026-03-08T06:30Z', '2026-03-08T07:00Z', '2026-03-08T07:30Z'],
  },
  {
    expr: '*/30 * * * *',
    options: { timezone: NY, dst: { gap: 'shift' } },
    after: '2026-03-08T06:00Z',
    why: '02:00 and 02:30 shift to 07:00Z, where 03:00 also falls: one fire',
    expected: ['2026-03-08T06:30Z', '2026-03-08T07:00Z', '2026-03-08T07:30Z'],
  },
  {
    expr: '0 1-3 * * *',
    options: { timezone: NY },
    after: '2026-03-08T05:00Z',
    expected: ['2026-03-08T06:00Z', '2026-03-08T07:00Z', '2026-03-09T05:00Z'],
  },
  {
    expr: '* 2 * * *',
    options: { timezone: NY },
    after: '2026-03-08T00:00Z',
    why: 'the whole 02:xx hour is skipped on Mar 8',
    expected: ['2026-03-09T06:00Z', '2026-03-09T06:01Z'],
  },
  {
    expr: '* 2 * * *',
    options: { timezone: NY, dst: { gap: 'shift' } },
    after: '2026-03-08T00:00Z',
    why: 'sixty skipped minutes fire once, at the transition',
    expected: ['2026-03-08T07:00Z', '2026-03-09T06:00Z', '2026-03-09T06:01Z'],
  },
  {
    expr: '*/15 2 * * *',
    options: { timezone: NY, dst: { gap: 'shift' } },
    after: '2026-03-08T00:00Z',
    expected: ['2026-03-08T07:00Z', '2026-03-09T06:00Z', '2026-03-09T06:15Z'],
  },
]);

checkCases('New York fall back, fixed-time', [
  {
    expr: '30 1 * * *',
    options: { timezone: NY },
    after: '2026-10-31T12:00Z',
    why: '01:30 EDT = 05:30Z (first pass); not 01:30 EST = 06:30Z; Nov 2 01:30 EST = 06:30Z',
    expected: ['2026-11-01T05:30Z', '2026-11-02T06:30Z'],
  },
  {
    expr: '30 1 * * *',
    options: { timezone: NY, dst: { overlap: 'both' } },
    after: '2026-10-31T12:00Z',
    expected: ['2026-11-01T05:30Z', '2026-11-01T06:30Z', '2026-11-02T06:30Z'],
  },
  {
    expr: '0 1 * * *',
    options: { timezone: NY },
    after: '2026-10-31T12:00Z',
    expected: ['2026-11-01T05:00Z', '2026-11-02T06:00Z'],
  },
  {
    expr: '0 2 * * *',
    options: { timezone: NY },
    after: '2026-10-31T12:00Z',
    why: '02:00 happens once, in EST: 07:00Z',
    expected: ['2026-11-01T07:00Z', '2026-11-02T07:00Z'],
  },
  {
    expr: '59 59 1 * * *',
    options: { timezone: NY },
    after: '2026-10-31T12:00Z',
    expected: ['2026-11-01T05:59:59Z', '2026-11-02T06:59:59Z'],
  },
]);

checkCases('New York fall back, interval', [
  {
    expr: '30 * * * *',
    options: { timezone: NY },
    after: '2026-11-01T04:00Z',
    why: '00:30 EDT, 01:30 EDT, 01:30 EST, 02:30 EST',
    expected: ['2026-11-01T04:30Z', '2026-11-01T05:30Z', '2026-11-01T06:30Z', '2026-11-01T07:30Z'],
  },
  {
    expr: '30 * * * *',
    options: { timezone: NY, dst: { overlap: 'first' } },
    after: '2026-11-01T04:00Z',
    expected: ['2026-11-01T04:30Z', '2026-11-01T05:30Z', '2026-11-01T07:30Z', '2026-11-01T08:30Z'],
  },
  {
    expr: '0 1-3 * * *',
    options: { timezone: NY },
    after: '2026-11-01T04:00Z',
    expected: ['2026-11-01T05:00Z', '2026-11-01T06:00Z', '2026-11-01T07:00Z', '2026-11-01T08:00Z'],
  },
  {
    expr: '0 1-3 * * *',
    options: { timezone: NY, dst: { overlap: 'first' } },
    after: '2026-11-01T04:00Z',
    expected: ['2026-11-01T05:00Z', '2026-11-01T07:00Z', '2026-11-01T08:00Z'],
  },
  {
    expr: '0 */30 1 * * *',
    options: { timezone: NY },
    after: '2026-11-01T04:00Z',
    expected: [
      '2026-11-01T05:00Z',
      '2026-11-01T05:30Z',
      '2026-11-01T06:00Z',
      '2026-11-01T06:30Z',
      '2026-11-02T06:00Z',
    ],
  },
]);
