// Fuzz: random strings are either accepted (and then next() works) or rejected with CronSyntaxError,
// never another error, never a hang.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CronParser } from '../../src/cron/index.js';
import { CronSyntaxError } from '../../src/errors/index.js';

const REF = Date.UTC(2026, 2, 11, 10, 17, 23);
/** A very generous per-case guard (not a performance assertion): catches only a runaway loop. */
const GUARD_MS = 5_000;

function tryOne(text: string, timezone?: string): void {
  const start = performance.now();
  let parser: CronParser | undefined;
  try {
    parser = new CronParser(text, timezone ? { timezone } : undefined);
  } catch (err) {
    if (!(err instanceof CronSyntaxError)) throw new Error(`"${text}" threw ${String(err)}`, { cause: err });
    expect(typeof err.field).toBe('string');
  }
  if (parser) {
    const n = parser.next(REF);
    expect(n === null || n > REF).toBe(true);
    const p = parser.prev(REF);
    expect(p === null || p < REF).toBe(true);
    if (n !== null) expect(parser.matches(n)).toBe(true);
  }
  expect(performance.now() - start, `"${text}" took too long`).toBeLessThan(GUARD_MS);
}

const cronChars = fc.constantFrom(
  ...'0123456789'.split(''),
  '*',
  '/',
  '-',
  ',',
  '?',
  'L',
  'W',
  '#',
  ' ',
  ' ',
  ' ',
  '@',
  'MON',
  'jan',
  'x',
  '\t',
);

describe('fuzz', () => {
  it('arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => tryOne(s)),
      { numRuns: 1500 },
    );
  });

  it('unicode strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (s) => tryOne(s)),
      { numRuns: 500 },
    );
  });

  it('strings over cron-ish characters', () => {
    fc.assert(
      fc.property(
        fc.array(cronChars, { maxLength: 30 }).map((xs) => xs.join('')),
        (s) => tryOne(s),
      ),
      { numRuns: 3000 },
    );
  });

  it('five or six space-separated tokens over cron-ish characters, in a DST zone', () => {
    const token = fc
      .array(
        cronChars.filter((c) => c !== ' ' && c !== '\t'),
        { minLength: 1, maxLength: 6 },
      )
      .map((xs) => xs.join(''));
    fc.assert(
      fc.property(fc.array(token, { minLength: 5, maxLength: 6 }), (ts) =>
        tryOne(ts.join(' '), 'America/New_York'),
      ),
      { numRuns: 3000 },
    );
  });

  it('known nasty inputs', () => {
    for (const s of [
      '*/1000000000 * * * *',
      '0-59/1000000000 * * * *',
      '1e3 * * * *',
      '0x10 * * * *',
      ' 5 * * * *',
      'NaN * * * *',
      'Infinity * * * *',
      '-0 * * * *',
      '00 00 01 01 *',
      '0 0 L-0 * *',
      '0 0 L-31 * *',
      '0 0 L-99 * *',
      '0 0 LW-1 * *',
      '0 0 1#1 * *',
      '0 0 * * 1#1#1',
      '0 0 * * L',
      '0 0 * * LL',
      '0 0 WL * *',
      '0 0 15WW * *',
      '0 0 * * #',
      '* * * * * * *',
      '@yearly @yearly',
      '@ * * * *',
      '\u0000 * * * *',
      '０ * * * *',
      '٣ * * * *',
      '__proto__ * * * *',
      'constructor * * * *',
      '0 0 * * toString',
      '0 0 * hasOwnProperty *',
    ])
      tryOne(s);
  });
});
