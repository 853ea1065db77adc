import type { Claim } from '../../store/index.js';
import type { ClaimRenewer } from './claim-renewer.js';
import type { FireClock } from './fire-clock.js';
import type { Batch } from './fire-loop-types.js';

/**
 * Claims set aside because their schedule used up its planning allowance (plan-allowance.ts): held
 * (renewed with `batch`) until `waitMs` has passed, then handed to `plan`, a batch of their own. After
 * the fire loop stops (`running` false) they are left to lapse, and another replica takes them over.
 */
export function planLater(
  claims: Claim[],
  batch: Batch,
  waitMs: number,
  loop: {
    timers: FireClock;
    renewer: ClaimRenewer;
    running: () => boolean;
    plan: (claims: Claim[]) => void;
  },
): void {
  loop.timers.setTimeout(() => {
    loop.renewer.release(
      batch,
      claims.map((c) => c.id),
    );
    if (loop.running()) loop.plan(claims);
  }, waitMs);
}
