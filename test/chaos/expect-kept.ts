import { expect } from 'vitest';
import { type ChaosPlan, type ChaosResult, describeChaos } from './default-chaos.js';

/**
 * What every chaos shape must show in the default configuration: none twice, at least 99.5 % run, and
 * every other one recorded with its reason, which is never a take-over coalesced away: only a consumer
 * that was behind (its previous job still waiting half a period later) may have an occurrence coalesced.
 */
export function expectKept(plan: ChaosPlan, r: ChaosResult): void {
  const line = describeChaos(plan, r);
  expect(r.twice, line).toEqual([]);
  expect(r.ran / r.expected, line).toBeGreaterThanOrEqual(0.995);
  expect(
    r.notRun.filter((n) => n.why !== 'skipped: coalesced (consumer-behind)'),
    line,
  ).toEqual([]);
}
