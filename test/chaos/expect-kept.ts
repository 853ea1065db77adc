import { expect } from 'vitest';
import { type ChaosPlan, type ChaosResult, describeChaos } from './default-chaos.js';

const CONSUMER_BEHIND = 'skipped: coalesced (consumer-behind)';

/** Every chaos shape's schedules fire every second; backpressure judges a consumer behind at half of it. */
const BEHIND_MS = 500;

/**
 * What every chaos shape must show in the default configuration: none twice, and every occurrence
 * that did not run recorded with its reason, which is never a take-over coalesced away: only a
 * consumer that was behind (its previous job still waiting half a period later) may have an
 * occurrence coalesced. While the consumers kept up (their starts within half a period at p99), at
 * least 99.5 % ran; a consumer that fell further behind (a loaded box) has the rest coalesced and
 * recorded, which is backpressure's promise, not a loss.
 */
export function expectKept(plan: ChaosPlan, r: ChaosResult): void {
  const line = describeChaos(plan, r);
  expect(r.twice, line).toEqual([]);
  expect(
    r.notRun.filter((n) => n.why !== CONSUMER_BEHIND),
    line,
  ).toEqual([]);
  if (r.lateP99 < BEHIND_MS) expect(r.ran / r.expected, line).toBeGreaterThanOrEqual(0.995);
}
