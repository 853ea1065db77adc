// Pacific/Apia skipped 2011-12-30 entirely: at 2011-12-30 10:00Z the clock went from Thu Dec 29 23:59:59
// (-10:00) to Sat Dec 31 00:00 (+14:00). The gap is the whole wall day of Friday Dec 30.
// A fixed-time expression that matches any time of Dec 30 runs at 10:00Z; an interval one skips it.
import { checkCases } from './support.js';

const APIA = 'Pacific/Apia';

checkCases('Apia: the skipped day', [
  {
    expr: '0 12 * * *',
    options: { timezone: APIA },
    after: '2011-12-29T12:00Z',
    why: 'Dec 29 12:00 -10 = 22:00Z; Dec 30 12:00 shifted to 10:00Z; Dec 31 12:00 +14 = Dec 30 22:00Z',
    expected: ['2011-12-29T22:00Z', '2011-12-30T10:00Z', '2011-12-30T22:00Z'],
  },
  {
    expr: '0 12 * * *',
    options: { timezone: APIA, dst: { gap: 'skip' } },
    after: '2011-12-29T12:00Z',
    expected: ['2011-12-29T22:00Z', '2011-12-30T22:00Z', '2011-12-31T22:00Z'],
  },
  {
    expr: '0 0 * * *',
    options: { timezone: APIA },
    after: '2011-12-28T12:00Z',
    why: 'Dec 30 midnight shifts to 10:00Z, which is also Dec 31 midnight: one fire',
    expected: ['2011-12-29T10:00Z', '2011-12-30T10:00Z', '2011-12-31T10:00Z'],
  },
  {
    expr: '0 0 30 12 *',
    options: { timezone: APIA },
    after: '2011-01-01T00:00Z',
    why: 'the 2012 and 2013 Dec 30 midnights are at +14 (DST)',
    expected: ['2011-12-30T10:00Z', '2012-12-29T10:00Z', '2013-12-29T10:00Z'],
  },
  {
    expr: '0 0 30 12 *',
    options: { timezone: APIA, dst: { gap: 'skip' } },
    after: '2011-01-01T00:00Z',
    expected: ['2012-12-29T10:00Z', '2013-12-29T10:00Z'],
  },
  {
    expr: '0 9 * * 5',
    options: { timezone: APIA },
    after: '2011-12-24T00:00Z',
    why: 'Friday Dec 30 never happened; Friday Jan 6 2012 09:00 +14 = Jan 5 19:00Z',
    expected: ['2011-12-30T10:00Z', '2012-01-05T19:00Z'],
  },
  {
    expr: '0 */6 * * *',
    options: { timezone: APIA },
    after: '2011-12-29T12:00Z',
    why: 'Dec 29 06:00, 12:00, 18:00 at -10; Dec 30 skipped; Dec 31 00:00, 06:00 at +14',
    expected: [
      '2011-12-29T16:00Z',
      '2011-12-29T22:00Z',
      '2011-12-30T04:00Z',
      '2011-12-30T10:00Z',
      '2011-12-30T16:00Z',
    ],
  },
  {
    expr: '0 */6 * * *',
    options: { timezone: APIA, dst: { gap: 'shift' } },
    after: '2011-12-29T12:00Z',
    why: 'the four Dec 30 times and Dec 31 00:00 all land on 10:00Z: one fire',
    expected: [
      '2011-12-29T16:00Z',
      '2011-12-29T22:00Z',
      '2011-12-30T04:00Z',
      '2011-12-30T10:00Z',
      '2011-12-30T16:00Z',
    ],
  },
  {
    expr: '0 * * * *',
    options: { timezone: APIA },
    after: '2011-12-30T08:30Z',
    expected: ['2011-12-30T09:00Z', '2011-12-30T10:00Z', '2011-12-30T11:00Z'],
  },
  {
    expr: '0 12 30 * *',
    options: { timezone: APIA },
    after: '2011-12-01T00:00Z',
    why: 'the 30th at noon: Dec 30 2011 shifted, then Jan 30 2012 12:00 +14 = Jan 29 22:00Z',
    expected: ['2011-12-30T10:00Z', '2012-01-29T22:00Z'],
  },
]);
