// DST transitions at midnight: America/Santiago (2026) and America/Sao_Paulo (2018-2019; no DST since 2019).
// Santiago fall back 2026-04-05 03:00Z: Sun Apr 5 00:00 -03 -> Sat Apr 4 23:00 -04; wall 23:00-23:59 twice.
// Santiago spring forward 2026-09-06 04:00Z: Sun Sep 6 00:00 -04 -> 01:00 -03; midnight never happens.
// Sao Paulo spring forward 2018-11-04 03:00Z (00:00 -03 -> 01:00 -02); fall back 2019-02-17 02:00Z
// (Sun 00:00 -02 -> Sat 23:00 -03).
import { checkCases } from './support.js';

const SCL = 'America/Santiago';
const SAO = 'America/Sao_Paulo';

checkCases('Santiago fall back', [
  {
    expr: '30 23 * * *',
    options: { timezone: SCL },
    after: '2026-04-04T12:00Z',
    why: 'Sat 23:30 -03 = Apr 5 02:30Z first pass; 23:30 -04 = 03:30Z not fired; Sun 23:30 -04 = Apr 6 03:30Z',
    expected: ['2026-04-05T02:30Z', '2026-04-06T03:30Z'],
  },
  {
    expr: '30 23 * * *',
    options: { timezone: SCL, dst: { overlap: 'both' } },
    after: '2026-04-04T12:00Z',
    expected: ['2026-04-05T02:30Z', '2026-04-05T03:30Z', '2026-04-06T03:30Z'],
  },
  {
    expr: '0 0 * * *',
    options: { timezone: SCL },
    after: '2026-04-04T12:00Z',
    why: 'Sunday midnight happens once, at -04 (04:00Z)',
    expected: ['2026-04-05T04:00Z', '2026-04-06T04:00Z'],
  },
  {
    expr: '0 * * * *',
    options: { timezone: SCL },
    after: '2026-04-05T01:30Z',
    expected: ['2026-04-05T02:00Z', '2026-04-05T03:00Z', '2026-04-05T04:00Z'],
  },
  {
    expr: '0 * * * *',
    options: { timezone: SCL, dst: { overlap: 'first' } },
    after: '2026-04-05T01:30Z',
    expected: ['2026-04-05T02:00Z', '2026-04-05T04:00Z', '2026-04-05T05:00Z'],
  },
]);

checkCases('Santiago spring forward (midnight skipped)', [
  {
    expr: '0 0 * * *',
    options: { timezone: SCL },
    after: '2026-09-05T00:00Z',
    why: 'Sep 5 00:00 -04 = 04:00Z; Sep 6 midnight shifted to 04:00Z (01:00 -03); Sep 7 00:00 -03 = 03:00Z',
    expected: ['2026-09-05T04:00Z', '2026-09-06T04:00Z', '2026-09-07T03:00Z'],
  },
  {
    expr: '0 0 * * *',
    options: { timezone: SCL, dst: { gap: 'skip' } },
    after: '2026-09-05T00:00Z',
    expected: ['2026-09-05T04:00Z', '2026-09-07T03:00Z'],
  },
  {
    expr: '0 0 6 9 *',
    options: { timezone: SCL },
    after: '2026-01-01T00:00Z',
    why: 'in 2027 DST starts on Sep 5, so Sep 6 midnight is at -03 (03:00Z)',
    expected: ['2026-09-06T04:00Z', '2027-09-06T03:00Z'],
  },
  {
    expr: '0 0 * * 0',
    options: { timezone: SCL },
    after: '2026-08-31T00:00Z',
    why: 'Sunday Sep 6 has no midnight',
    expected: ['2026-09-06T04:00Z', '2026-09-13T03:00Z'],
  },
  {
    expr: '*/30 0 * * *',
    options: { timezone: SCL },
    after: '2026-09-05T12:00Z',
    expected: ['2026-09-07T03:00Z', '2026-09-07T03:30Z'],
  },
  {
    expr: '*/30 0 * * *',
    options: { timezone: SCL, dst: { gap: 'shift' } },
    after: '2026-09-05T12:00Z',
    expected: ['2026-09-06T04:00Z', '2026-09-07T03:00Z', '2026-09-07T03:30Z'],
  },
]);

checkCases('Sao Paulo', [
  {
    expr: '0 0 * * *',
    options: { timezone: SAO },
    after: '2018-11-03T00:00Z',
    expected: ['2018-11-03T03:00Z', '2018-11-04T03:00Z', '2018-11-05T02:00Z'],
  },
  {
    expr: '0 0 * * *',
    options: { timezone: SAO, dst: { gap: 'skip' } },
    after: '2018-11-03T00:00Z',
    expected: ['2018-11-03T03:00Z', '2018-11-05T02:00Z'],
  },
  {
    expr: '0 23 * * *',
    options: { timezone: SAO },
    after: '2019-02-16T12:00Z',
    expected: ['2019-02-17T01:00Z', '2019-02-18T02:00Z'],
  },
  {
    expr: '0 23 * * *',
    options: { timezone: SAO, dst: { overlap: 'both' } },
    after: '2019-02-16T12:00Z',
    expected: ['2019-02-17T01:00Z', '2019-02-17T02:00Z', '2019-02-18T02:00Z'],
  },
  {
    expr: '0 0 * * *',
    options: { timezone: SAO },
    after: '2026-11-01T00:00Z',
    why: 'no DST any more: -03 all year',
    expected: ['2026-11-01T03:00Z', '2026-11-02T03:00Z'],
  },
]);
