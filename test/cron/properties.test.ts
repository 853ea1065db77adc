// Property tests: random valid expressions (generated from the grammar, specials included), zones and
// instants (1990-2060, half of them within hours of a DST transition). The engine must agree with the
// brute-force oracle in ./oracle.ts, which shares no code with src/cron/.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CronOptions } from '../../src/cron/cron-options.js';
import { CronParser } from '../../src/cron/index.js';
import { CronSyntaxError } from '../../src/errors/index.js';
import { caseArb, dstCaseArb } from './arbitraries.js';
import { CronOracle } from './oracle.js';
import { iso } from './support.js';

/** The engine's parser, or null when it rejects an expression that (the oracle agrees) can never fire. */
function build(expr: string, options: CronOptions): CronParser | null {
  const oracle = new CronOracle(expr, options);
  try {
    const p = new CronParser(expr, options);
    expect(oracle.everFires(), `"${expr}" can never fire but was accepted`).toBe(true);
    return p;
  } catch (err) {
    if (!(err instanceof CronSyntaxError) || err.field !== 'expression') throw err;
    expect(oracle.everFires(), `"${expr}" rejected as never firing, but it can fire`).toBe(false);
    return null;
  }
}

const YEAR = 365.2425 * 86_400_000;
const RUNS = Number(process.env.CRON_PROPERTY_RUNS ?? 250);

describe('engine agrees with the brute-force oracle', () => {
  it("next(t) equals the oracle, and prev(next(t)) is the oracle's last fire <= t", () => {
    fc.assert(
      fc.property(caseArb, ([expr, options, t]) => {
        const p = build(expr, options);
        if (!p) return;
        const oracle = new CronOracle(expr, options);
        const want = oracle.next(t);
        const got = p.next(t);
        const ctx = `"${expr}" ${JSON.stringify(options)} after ${iso(t)}`;
        if (want === null || want - t > 399 * YEAR) {
          if (got !== null) expect(got - t, ctx).toBeGreaterThan(399 * YEAR);
          return;
        }
        expect(iso(got), `next ${ctx}`).toBe(iso(want));
        const before = p.prev(want);
        const wantBefore = oracle.prev(want, 50);
        if (wantBefore !== null) expect(iso(before), `prev(${iso(want)}) ${ctx}`).toBe(iso(wantBefore));
        if (before !== null) expect(before, `prev(next(t)) <= t ${ctx}`).toBeLessThanOrEqual(t);
      }),
      { numRuns: RUNS },
    );
  });

  it('matches(next(t)) holds, and matches agrees with the oracle at aligned instants', () => {
    fc.assert(
      fc.property(caseArb, ([expr, options, t]) => {
        const p = build(expr, options);
        if (!p) return;
        const ctx = `"${expr}" ${JSON.stringify(options)} after ${iso(t)}`;
        const n = p.next(t);
        if (n !== null) expect(p.matches(n), `matches(next) ${ctx}`).toBe(true);
        const oracle = new CronOracle(expr, options);
        const aligned = Math.floor(t / oracle.step) * oracle.step;
        expect(p.matches(aligned), `matches(${iso(aligned)}) ${ctx}`).toBe(oracle.firesAt(aligned));
      }),
      { numRuns: RUNS },
    );
  });

  it("nextN strictly increases and equals the oracle's first instants", () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 2, max: 12 }), ([expr, options, t], n) => {
        const p = build(expr, options);
        if (!p) return;
        const ctx = `"${expr}" ${JSON.stringify(options)} after ${iso(t)}`;
        const list = p.nextN(n, t);
        for (let i = 1; i < list.length; i++) expect(list[i]!, ctx).toBeGreaterThan(list[i - 1]!);
        if (list.length > 0) expect(list[0]!, ctx).toBeGreaterThan(t);
        const oracle = new CronOracle(expr, options).nextN(n, t);
        const horizon = t + 399 * YEAR;
        expect(list.filter((x) => x <= horizon).map(iso), ctx).toEqual(
          oracle.filter((x) => x <= horizon).map(iso),
        );
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it('around DST transitions, dense expressions: the next 40 instants equal the oracle', () => {
    fc.assert(
      fc.property(dstCaseArb, ([expr, options, t]) => {
        const p = new CronParser(expr, options);
        const ctx = `"${expr}" ${JSON.stringify(options)} after ${iso(t)}`;
        const n = 40;
        expect(p.nextN(n, t).map(iso), ctx).toEqual(new CronOracle(expr, options).nextN(n, t).map(iso));
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });
});
