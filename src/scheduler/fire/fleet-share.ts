import type { ClaimResult, FleetMember } from '../../store/index.js';

/**
 * This replica's part in sharing bursts with the other replicas (see claim-6.lua): what it claimed
 * lately and not due yet (counted against its share, so a replica back for a second round before another woke leaves
 * that one its share), and what it tells the claim script.
 */
export class FleetShare {
  /** Fresh claims (not take-overs) of recent claim calls not all due yet: their last fire time, count. */
  private recent: { until: number; n: number }[] = [];

  /**
   * The fleet entry of the next claim: `ownAheadMs`, the horizon this replica's own claims need.
   */
  member(
    replica: string,
    ownAheadMs: number,
    options: { maxSleepMs: number; claimLeaseMs: number; claimAheadMs: number },
  ): FleetMember {
    return {
      replica,
      aheadMs: ownAheadMs,
      liveMs: options.maxSleepMs,
      recent: this.recent.reduce((sum, r) => sum + r.n, 0),
      imminentMs: options.claimAheadMs,
    };
  }

  claimed(res: ClaimResult): void {
    let n = 0;
    let until = 0;
    for (const c of res.claims) {
      if (c.reclaimed) continue;
      n++;
      until = Math.max(until, c.fireAt);
    }
    this.recent = this.recent.filter((r) => r.until >= res.now);
    if (n > 0) this.recent.push({ until, n });
  }
}
