// DST in Europe/London, 2026.
// Spring forward 2026-03-29 01:00Z: 01:00 GMT -> 02:00 BST; wall 01:00-01:59 never happens.
// Fall back 2026-10-25 01:00Z: 02:00 BST -> 01:00 GMT; wall 01:00-01:59 happens twice (00:xxZ, 01:xxZ).
import { checkCases } from './support.js';

const LON = 'Europe/London';

checkCases('London spring forward', [
  {
    expr: '30 1 * * *',
    options: { timezone: LON },
    after: '2026-03-28T00:00Z',
    why: 'Mar 28 01:30 GMT; Mar 29 01:30 shifted to 01:00Z (02:00 BST); Mar 30 01:30 BST = 00:30Z',
    expected: ['2026-03-28T01:30Z', '2026-03-29T01:00Z', '2026-03-30T00:30Z'],
  },
  {
    expr: '30 1 * * *',
    options: { timezone: LON, dst: { gap: 'skip' } },
    after: '2026-03-28T00:00Z',
    expected: ['2026-03-28T01:30Z', '2026-03-30T00:30Z'],
  },
  {
    expr: '0 1 * * 0',
    options: { timezone: LON },
    after: '2026-03-22T12:00Z',
    why: 'Sunday 01:00: Mar 29 is the transition day',
    expected: ['2026-03-29T01:00Z', '2026-04-05T00:00Z'],
  },
  {
    expr: '*/20 1 * * *',
    options: { timezone: LON },
    after: '2026-03-28T12:00Z',
    why: 'interval: 01:00, 01:20, 01:40 on Mar 29 are skipped',
    expected: ['2026-03-30T00:00Z', '2026-03-30T00:20Z', '2026-03-30T00:40Z'],
  },
  {
    expr: '*/20 1 * * *',
    options: { timezone: LON, dst: { gap: 'shift' } },
    after: '2026-03-28T12:00Z',
    expected: ['2026-03-29T01:00Z', '2026-03-30T00:00Z', '2026-03-30T00:20Z'],
  },
  {
    expr: '0 * * * *',
    options: { timezone: LON },
    after: '2026-03-29T00:00Z',
    expected: ['2026-03-29T01:00Z', '2026-03-29T02:00Z'],
  },
]);

checkCases('London fall back', [
  {
    expr: '30 1 * * *',
    options: { timezone: LON },
    after: '2026-10-24T12:00Z',
    expected: ['2026-10-25T00:30Z', '2026-10-26T01:30Z'],
  },
  {
    expr: '30 1 * * *',
    options: { timezone: LON, dst: { overlap: 'both' } },
    after: '2026-10-24T12:00Z',
    expected: ['2026-10-25T00:30Z', '2026-10-25T01:30Z', '2026-10-26T01:30Z'],
  },
  {
    expr: '30 1 * * *',
    options: { timezone: LON, dst: { gap: 'skip', overlap: 'both' } },
    after: '2026-10-24T12:00Z',
    expected: ['2026-10-25T00:30Z', '2026-10-25T01:30Z', '2026-10-26T01:30Z'],
  },
  {
    expr: '*/20 1 * * *',
    options: { timezone: LON },
    after: '2026-10-24T12:00Z',
    expected: [
      '2026-10-25T00:00Z',
      '2026-10-25T00:20Z',
      '2026-10-25T00:40Z',
      '2026-10-25T01:00Z',
      '2026-10-25T01:20Z',
      '2026-10-25T01:40Z',
      '2026-10-26T01:00Z',
    ],
  },
  {
    expr: '*/20 1 * * *',
    options: { timezone: LON, dst: { overlap: 'first' } },
    after: '2026-10-24T12:00Z',
    expected: ['2026-10-25T00:00Z', '2026-10-25T00:20Z', '2026-10-25T00:40Z', '2026-10-26T01:00Z'],
  },
]);
