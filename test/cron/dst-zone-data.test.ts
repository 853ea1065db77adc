// The DST tests below were worked out by hand from these transitions (looked up in the tz database).
// This file checks that the runtime's Intl data agrees, so that a failure elsewhere is not a tzdata change.
import { describe, expect, it } from 'vitest';
import { transitionsOf } from './oracle.js';
import { iso } from './support.js';

const hours = (ms: number): number => ms / 3_600_000;

const expected: [zone: string, from: number, to: number, rows: [string, number, number][]][] = [
  [
    'America/New_York',
    2026,
    2026,
    [
      ['2026-03-08T07:00Z', -5, -4],
      ['2026-11-01T06:00Z', -4, -5],
    ],
  ],
  [
    'Europe/London',
    2026,
    2026,
    [
      ['2026-03-29T01:00Z', 0, 1],
      ['2026-10-25T01:00Z', 1, 0],
    ],
  ],
  [
    'Australia/Lord_Howe',
    2026,
    2026,
    [
      ['2026-04-04T15:00Z', 11, 10.5],
      ['2026-10-03T15:30Z', 10.5, 11],
    ],
  ],
  [
    'America/Santiago',
    2026,
    2026,
    [
      ['2026-04-05T03:00Z', -3, -4],
      ['2026-09-06T04:00Z', -4, -3],
    ],
  ],
  [
    'America/Sao_Paulo',
    2018,
    2019,
    [
      ['2018-02-18T02:00Z', -2, -3],
      ['2018-11-04T03:00Z', -3, -2],
      ['2019-02-17T02:00Z', -2, -3],
    ],
  ],
  ['America/Sao_Paulo', 2020, 2030, []],
  [
    'Pacific/Apia',
    2011,
    2011,
    [
      ['2011-04-02T14:00Z', -10, -11],
      ['2011-09-24T14:00Z', -11, -10],
      ['2011-12-30T10:00Z', -10, 14],
    ],
  ],
  ['Asia/Kolkata', 1990, 2060, []],
];

describe('tz data the DST tests rely on', () => {
  for (const [zone, from, to, rows] of expected) {
    it(`${zone} ${from}-${to}`, () => {
      const got = transitionsOf(zone, from, to).map((t) => [iso(t.at), hours(t.before), hours(t.after)]);
      expect(got).toEqual(rows.map(([t, a, b]) => [iso(Date.parse(t)), a, b]));
    });
  }
});
