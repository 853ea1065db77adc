import { describe, expect, it } from 'vitest';
import type { CronOptions } from '../../src/cron/cron-options.js';
import { CronParser } from '../../src/cron/index.js';
import { CronOracle } from './oracle.js';

/** The fixed reference time of the conformance tables: a Wednesday. */
export const REF = '2026-03-11T10:17:23Z';

/** Epoch ms of an ISO string (seconds optional: '2026-03-12T09:00Z'). */
export const at = (text: string): number => {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new Error(`bad ISO instant in a test table: ${text}`);
  return ms;
};

/** Shortest ISO string of an instant: '2026-03-12T09:00Z', '2026-03-12T09:00:15Z', or with milliseconds. */
export const iso = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString().replace(':00.000Z', 'Z').replace('.000Z', 'Z');

/** One hand-worked row: the next instants after `after`, in order. */
export interface Case {
  expr: string;
  options?: CronOptions;
  after: string;
  expected: string[];
  /** How the expectation was derived, when it is not obvious. */
  why?: string;
}

const label = (c: Case): string =>
  `"${c.expr}"${c.options ? ` ${JSON.stringify(c.options)}` : ''} after ${c.after}`;

/**
 * For each row: the engine's nextN, next() one by one, prev() walking back, and matches() agree with the
 * hand-worked instants; and so does the oracle (which checks the oracle, so that the property tests
 * can trust it).
 */
export function checkCases(title: string, cases: Case[]): void {
  describe(title, () => {
    for (const c of cases) {
      const expected = c.expected.map((e) => iso(at(e)));
      const after = at(c.after);

      it(`nextN ${label(c)}`, () => {
        const p = new CronParser(c.expr, c.options);
        expect(p.nextN(expected.length, after).map(iso)).toEqual(expected);
      });

      it(`next one by one, prev back, matches ${label(c)}`, () => {
        const p = new CronParser(c.expr, c.options);
        let t = after;
        const got: (string | null)[] = [];
        for (let i = 0; i < expected.length; i++) {
          const n = p.next(t);
          got.push(iso(n));
          if (n === null) break;
          t = n;
        }
        expect(got).toEqual(expected);
        const back: (string | null)[] = [];
        for (let i = expected.length - 1; i > 0; i--) back.push(iso(p.prev(at(expected[i]!))));
        expect(back).toEqual(expected.slice(0, -1).reverse());
        expect(expected.map((e) => p.matches(at(e!)))).toEqual(expected.map(() => true));
        // one second before each fire there is no fire, unless that is the previous expected fire
        // (or lies before `after`, where the row says nothing)
        const before = expected.map((e) => at(e!) - 1000);
        expect(before.map((b) => (b > after ? p.matches(b) : false))).toEqual(
          before.map((b, i) => b > after && i > 0 && at(expected[i - 1]!) === b),
        );
      });

      it(`oracle agrees ${label(c)}`, () => {
        const o = new CronOracle(c.expr, c.options);
        expect(o.nextN(expected.length, after).map(iso)).toEqual(expected);
      });
    }
  });
}
