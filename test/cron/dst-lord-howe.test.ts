// DST in Australia/Lord_Howe, 2026: a 30-minute shift between +10:30 (LHST) and +11:00 (LHDT).
// Fall back 2026-04-04 15:00Z: Apr 5 02:00 +11 -> 01:30 +10:30; wall 01:30-01:59 happens twice.
// Spring forward 2026-10-03 15:30Z: Oct 4 02:00 +10:30 -> 02:30 +11; wall 02:00-02:29 never happens.
import { checkCases } from './support.js';

const LH = 'Australia/Lord_Howe';

checkCases('Lord Howe fall back (half-hour overlap)', [
  {
    expr: '45 1 * * *',
    options: { timezone: LH },
    after: '2026-04-04T12:00Z',
    why: '01:45 +11 = 14:45Z first pass; 01:45 +10:30 = 15:15Z not fired; Apr 6 01:45 +10:30 = Apr 5 15:15Z',
    expected: ['2026-04-04T14:45Z', '2026-04-05T15:15Z'],
  },
  {
    expr: '45 1 * * *',
    options: { timezone: LH, dst: { overlap: 'both' } },
    after: '2026-04-04T12:00Z',
    expected: ['2026-04-04T14:45Z', '2026-04-04T15:15Z', '2026-04-05T15:15Z'],
  },
  {
    expr: '15 1 * * *',
    options: { timezone: LH },
    after: '2026-04-04T12:00Z',
    why: '01:15 is before the repeated half hour: once, at +11',
    expected: ['2026-04-04T14:15Z', '2026-04-05T14:45Z'],
  },
  {
    expr: '*/15 1 * * *',
    options: { timezone: LH },
    after: '2026-04-04T12:00Z',
    why: '01:00, 01:15, 01:30, 01:45 at +11, then 01:30, 01:45 again at +10:30',
    expected: [
      '2026-04-04T14:00Z',
      '2026-04-04T14:15Z',
      '2026-04-04T14:30Z',
      '2026-04-04T14:45Z',
      '2026-04-04T15:00Z',
      '2026-04-04T15:15Z',
      '2026-04-05T14:30Z',
    ],
  },
  {
    expr: '*/15 1 * * *',
    options: { timezone: LH, dst: { overlap: 'first' } },
    after: '2026-04-04T12:00Z',
    expected: [
      '2026-04-04T14:00Z',
      '2026-04-04T14:15Z',
      '2026-04-04T14:30Z',
      '2026-04-04T14:45Z',
      '2026-04-05T14:30Z',
    ],
  },
  {
    expr: '30 * * * *',
    options: { timezone: LH },
    after: '2026-04-04T13:00Z',
    expected: ['2026-04-04T13:30Z', '2026-04-04T14:30Z', '2026-04-04T15:00Z', '2026-04-04T16:00Z'],
  },
  {
    expr: '0 * * * *',
    options: { timezone: LH },
    after: '2026-04-04T13:00Z',
    why: '01:00 +11 = 14:00Z; 02:00 comes once, at +10:30 = 15:30Z',
    expected: ['2026-04-04T14:00Z', '2026-04-04T15:30Z', '2026-04-04T16:30Z'],
  },
]);

checkCases('Lord Howe spring forward (half-hour gap)', [
  {
    expr: '15 2 * * *',
    options: { timezone: LH },
    after: '2026-10-03T00:00Z',
    why: 'Oct 4 02:15 does not exist: shifted to 15:30Z (02:30 +11); Oct 5 02:15 +11 = Oct 4 15:15Z',
    expected: ['2026-10-03T15:30Z', '2026-10-04T15:15Z'],
  },
  {
    expr: '15 2 * * *',
    options: { timezone: LH, dst: { gap: 'skip' } },
    after: '2026-10-03T00:00Z',
    expected: ['2026-10-04T15:15Z', '2026-10-05T15:15Z'],
  },
  {
    expr: '0,15 2 * * *',
    options: { timezone: LH },
    after: '2026-10-03T00:00Z',
    expected: ['2026-10-04T15:00Z', '2026-10-04T15:15Z'],
  },
  {
    expr: '0,15 2 * * *',
    options: { timezone: LH, dst: { gap: 'shift' } },
    after: '2026-10-03T00:00Z',
    expected: ['2026-10-03T15:30Z', '2026-10-04T15:00Z', '2026-10-04T15:15Z'],
  },
  {
    expr: '*/15 2 * * *',
    options: { timezone: LH },
    after: '2026-10-03T00:00Z',
    why: '02:00 and 02:15 skipped; 02:30 +11 = 15:30Z and 02:45 = 15:45Z happen',
    expected: ['2026-10-03T15:30Z', '2026-10-03T15:45Z', '2026-10-04T15:00Z'],
  },
]);
