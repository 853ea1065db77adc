// Asia/Kolkata: +05:30 all year, no DST. Reference 2026-03-11T10:17:23Z is 15:47:23 IST (Wednesday).
import { checkCases, REF } from './support.js';

const IN = 'Asia/Kolkata';

checkCases('Kolkata (+05:30)', [
  {
    expr: '0 9 * * *',
    options: { timezone: IN },
    after: REF,
    expected: ['2026-03-12T03:30Z', '2026-03-13T03:30Z'],
  },
  {
    expr: '30 * * * *',
    options: { timezone: IN },
    after: REF,
    why: 'xx:30 IST is yy:00 UTC',
    expected: ['2026-03-11T11:00Z', '2026-03-11T12:00Z'],
  },
  {
    expr: '*/45 * * * *',
    options: { timezone: IN },
    after: REF,
    why: '16:00 IST = 10:30Z, 16:45 = 11:15Z, 17:00 = 11:30Z',
    expected: ['2026-03-11T10:30Z', '2026-03-11T11:15Z', '2026-03-11T11:30Z'],
  },
  {
    expr: '0 0 1 1 *',
    options: { timezone: IN },
    after: '2026-06-01T00:00Z',
    expected: ['2026-12-31T18:30Z', '2027-12-31T18:30Z'],
  },
  {
    expr: '0 0 * * 1',
    options: { timezone: IN },
    after: REF,
    why: 'Monday midnight IST is Sunday 18:30Z',
    expected: ['2026-03-15T18:30Z', '2026-03-22T18:30Z'],
  },
  {
    expr: '0 0 L * *',
    options: { timezone: IN },
    after: REF,
    expected: ['2026-03-30T18:30Z', '2026-04-29T18:30Z'],
  },
  {
    expr: '30 2 * * *',
    options: { timezone: IN, dst: { gap: 'skip', overlap: 'both' } },
    after: REF,
    why: 'the overrides change nothing where there is no DST',
    expected: ['2026-03-11T21:00Z', '2026-03-12T21:00Z'],
  },
]);
