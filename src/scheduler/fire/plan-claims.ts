import type { Claim, ScheduleDefinition } from '../../store/index.js';
import { CalendarTrigger } from '../../triggers/calendar-trigger.js';
import { isSerializableTrigger } from '../../triggers/is-serializable-trigger.js';
import { withTimeBudgetTwice } from '../../triggers/time-budget.js';
import { planCalendarOccurrence } from './calendar-plan.js';
import type { CachedDefinition, DefinitionCache } from './definition-cache.js';
import type { Batch, FireLoopStats, Item } from './fire-loop-types.js';
import { type OccurrencePlan, planOccurrence } from './occurrence-planner.js';
import { metered, planWaitMs } from './plan-allowance.js';

/** One claim call's claims, planned. */
export interface PlannedClaims {
  batch: Batch;
  /** Items to enqueue now, and items to keep for their fire time. */
  dueNow: Item[];
  later: Item[];
  /** The ids planned (their leases are renewed while they wait). */
  planned: string[];
  /** A claim this process cannot plan (a custom trigger it does not define) was left to lapse. */
  unplanned: boolean;
  /** The markings of the claims that could not be planned. */
  poisoned: Promise<void>[];
  /**
   * Claims set aside unplanned: their schedule used up its planning allowance (plan-allowance.ts).
   * Held (renewed) and planned again once `deferMs` has passed.
   */
  deferred: Claim[];
  deferMs: number;
}

/**
 * Plan each claim of a batch on its own (`planOccurrence`, under the trigger budget). One that cannot
 * be planned (a bad definition, a trigger that throws or answers an invalid time, a plan over the
 * budget) is marked errored by `markErrored`; the rest of the batch goes on.
 */
export function planClaims(
  claims: readonly Claim[],
  at: { now: number; token: string; stopSeq: number },
  cache: DefinitionCache,
  triggerBudgetMs: number,
  stats: FireLoopStats,
  markErrored: (claim: Claim, def: ScheduleDefinition | undefined, err: unknown) => Promise<void>,
): PlannedClaims {
  const { now, token, stopSeq } = at;
  const out: PlannedClaims = {
    batch: { token, left: 0, ready: [] },
    dueNow: [],
    later: [],
    planned: [],
    unplanned: false,
    poisoned: [],
    deferred: [],
    deferMs: 0,
  };
  const { batch } = out;
  for (const claim of claims) {
    if (claim.reclaimed) stats.reclaimed++;
    let cached: CachedDefinition | undefined;
    let plan: OccurrencePlan;
    try {
      cached = cache.load(claim);
      if (!cached) {
        out.unplanned = true; // left claimed: the lease lapses and a replica that can fire it takes over
        continue;
      }
      const { def, trigger } = cached;
      const fired = claim.state?.fired ?? 0;
      const wait = planWaitMs(cached.allowance, performance.now(), triggerBudgetMs);
      if (wait > 0) {
        // its planning used up its share of the loop: set aside, so that it delays no other schedule
        out.deferred.push(claim);
        out.planned.push(claim.id);
        out.deferMs = Math.max(out.deferMs, wait);
        continue;
      }
      // a plan that overruns the trigger budget throws (TriggerBudgetError): errored alone, below. A
      // built-in trigger's plan is pure: one over the budget is planned once more before it errors
      // the schedule (a pause of the process counted as its CPU); a custom trigger's is planned once
      const c = cached;
      plan = metered(c, triggerBudgetMs, () =>
        withTimeBudgetTwice(triggerBudgetMs, isSerializableTrigger(trigger), () =>
          trigger instanceof CalendarTrigger
            ? planCalendarOccurrence(
                { def, trigger, fireAt: claim.fireAt, now, fired },
                claim.state?.lastFireAt ?? null,
              )
            : planOccurrence({ def, trigger, fireAt: claim.fireAt, now, fired }),
        ),
      );
    } catch (err) {
      out.poisoned.push(markErrored(claim, cached?.def, err));
      continue;
    }
    const item: Item = { claim, cached, plan, batch, stopSeq, claimedAt: now };
    out.planned.push(claim.id);
    if (!plan.enqueue) batch.ready.push(item);
    else {
      batch.left++;
      (plan.enqueue.fireAt > now ? out.later : out.dueNow).push(item);
    }
  }
  return out;
}
