/**
 * How much of the fire loop one schedule's planning may take (its trigger's `nextFire` calls, the walks
 * of a late claim). Planning runs on the loop that enqueues every other schedule, so a trigger that is
 * slow but under its budget (45 ms against 50, fired every 20 ms) would otherwise hold every other
 * schedule back, all the time. Each schedule gets a token bucket of planning time: a burst of one
 * trigger budget (`triggerBudgetMs`), refilled at `PLAN_SHARE` of wall time (20 ms a second). A claim
 * of a schedule whose bucket is empty is set aside, unplanned, until it refills; when it is planned, it
 * is late, and backpressure coalesces its occurrences, not the others'. So one schedule delays another
 * by at most one budget at a time, and by at most `PLAN_SHARE` of each second on average.
 *
 * Wall time, read around each plan: a plan of a fast trigger (a few µs) never empties its bucket, and
 * only a schedule that once took a millisecond or more keeps an allowance at all.
 */

/** The share of wall time one schedule's planning may use, on average. */
export const PLAN_SHARE = 0.02;

/** A plan shorter than this (ms) is not counted for a schedule that has no allowance yet. */
const COUNTED_FROM_MS = 1;

/** One schedule's bucket: tokens (ms of planning, negative: in debt) at `atMs` (`performance.now`). */
export interface PlanAllowance {
  tokensMs: number;
  atMs: number;
}

function tokensAt(a: PlanAllowance, nowMs: number, budgetMs: number): number {
  return Math.min(budgetMs, a.tokensMs + (nowMs - a.atMs) * PLAN_SHARE);
}

/** How long (ms) a schedule's next plan must wait for its bucket to refill: 0 when it may plan now. */
export function planWaitMs(a: PlanAllowance | undefined, nowMs: number, budgetMs: number): number {
  if (!a) return 0;
  const tokens = tokensAt(a, nowMs, budgetMs);
  return tokens >= 0 ? 0 : Math.ceil(-tokens / PLAN_SHARE);
}

/** The allowance after a plan that took `spentMs` ending at `nowMs` (undefined: none kept). */
export function chargePlan(
  a: PlanAllowance | undefined,
  nowMs: number,
  spentMs: number,
  budgetMs: number,
): PlanAllowance | undefined {
  if (spentMs < COUNTED_FROM_MS && (!a || tokensAt(a, nowMs, budgetMs) >= budgetMs)) {
    return undefined; // fast, and refilled (or never slow): nothing kept
  }
  const tokens = (a ? tokensAt(a, nowMs, budgetMs) : budgetMs) - spentMs;
  return { tokensMs: tokens, atMs: nowMs };
}

/** Run `plan` for the schedule of `holder`, charging the time it took to its allowance. */
export function metered<T>(
  holder: { allowance?: PlanAllowance | undefined },
  budgetMs: number,
  plan: () => T,
): T {
  const from = performance.now();
  try {
    return plan();
  } finally {
    const to = performance.now();
    holder.allowance = chargePlan(holder.allowance, to, to - from, budgetMs);
  }
}
