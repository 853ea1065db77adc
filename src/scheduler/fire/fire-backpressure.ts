import { occurrenceJobId } from '../../store/index.js';
import { withTimeBudget } from '../../triggers/time-budget.js';
import { type PreviousJob, stillWaiting } from './backpressure.js';
import type { FireLoopDeps, Item } from './fire-loop-types.js';
import { backpressureApplies, behindPlan, coalescedPlan, type PlanInput } from './occurrence-planner.js';
import { metered } from './plan-allowance.js';

type Deps = Pick<FireLoopDeps, 'options' | 'queue' | 'logger'>;

/**
 * How late an occurrence may be claimed before the scheduler counts as behind (`coalesceBehind`): a
 * claim lease, the longest a take-over makes a schedule wait, plus the time a survivor takes to look
 * (see fire-loop.ts, HELD_RECHECK_MS) and to plan. Later than that, no live replica was claiming it.
 */
export function takeOverGraceMs(claimLeaseMs: number): number {
  return claimLeaseMs + 250;
}

/** The planner's input for a claimed item, at `now`. */
function planInput(item: Item, now: number): PlanInput {
  const { def, trigger } = item.cached;
  return { def, trigger, fireAt: item.claim.fireAt, now, fired: item.claim.state?.fired ?? 0 };
}

/**
 * Backpressure on one planned claim batch: the occurrences due now whose schedule's next one is due too
 * are re-planned to run the latest one due (`coalesceBehind`), then the previous jobs are looked up for
 * all (`holdBackAtClaim`). Returns every item held back (not enqueued), each moved to its batch's ready
 * list.
 */
export function holdBack(
  dueNow: readonly Item[],
  later: readonly Item[],
  now: number,
  deps: Deps,
): Promise<Set<Item>> {
  coalesceBehind(dueNow, now, deps);
  return holdBackAtClaim([...dueNow, ...later], now, deps);
}

/**
 * Backpressure when this replica itself runs behind: a claimed occurrence that is due already and
 * whose schedule's next occurrence is due too, and that is later than a take-over explains
 * (`takeOverGraceMs`: a claim lease and a little), is re-planned (see `behindPlan`): the latest
 * occurrence due is enqueued in its place, now, standing for it and the others due since. Without it a
 * scheduler that falls behind (more due than the box can claim, a replica back after a pause) enqueues
 * its whole backlog, each occurrence later than the last, and never catches up; and with the stand-in
 * left to the next claim instead, a next claim as late coalesces it again, and nothing runs at all.
 * Same scope as the look-up below: not a reclaimed claim (its own job may be in the queue already), not
 * `misfire: 'all'` with `coalesce: false`. Returns the items re-planned.
 */
export function coalesceBehind(items: readonly Item[], now: number, deps: Deps): Set<Item> {
  const behind = new Set<Item>();
  if (!deps.options.backpressure) return behind;
  for (const item of items) {
    const def = item.cached.def;
    if (item.claim.reclaimed || !backpressureApplies(def)) continue;
    let plan: ReturnType<typeof behindPlan>;
    try {
      const budget = deps.options.triggerBudgetMs;
      plan = metered(item.cached, budget, () =>
        withTimeBudget(budget, () =>
          behindPlan(planInput(item, now), item.plan, takeOverGraceMs(deps.options.claimLeaseMs)),
        ),
      );
    } catch (err) {
      // a trigger that throws further on: the claimed occurrence was planned, it is enqueued as planned
      // (and the next claim's planning marks the schedule errored)
      deps.logger.warn({ err, scheduleId: def.id }, 'bullbeat: trigger failed walking a backlog; enqueueing');
      continue;
    }
    if (!plan) continue;
    item.plan = plan;
    behind.add(item);
  }
  return behind;
}

/**
 * Backpressure (per schedule), at the claim: an occurrence whose schedule's previous occurrence is
 * still waiting in its queue (enqueued, not started by any consumer) is not enqueued but counted as
 * `coalesced`, unless the schedule asks for every occurrence (`misfire: 'all'`, `coalesce: false`).
 * Looked up once per claim batch, when claimed (before its fire time), so the burst itself pays
 * nothing. A reclaimed occurrence is left alone (its own job may be in the queue already).
 *
 * A consumer is behind when the previous job, not started, has waited at least half the gap between
 * the two fire times (on time, it was added a whole gap before the new one is due). A previous job
 * added late (a replica died holding it and another took it over, a deployment back after an outage)
 * has not had that chance: the new occurrence is enqueued too, never coalesced in its place. A previous
 * job still waiting at the claim that has not waited that long yet is marked `recheck`:
 * `holdBackWhenDue` looks again when the new occurrence is due. Returns the items held back, moved to
 * their batch's ready list.
 */
export function holdBackAtClaim(items: readonly Item[], now: number, deps: Deps): Promise<Set<Item>> {
  if (!deps.options.backpressure) return Promise.resolve(new Set());
  const candidates: (PreviousJob<Item> & { behindAfterMs: number })[] = [];
  for (const item of items) {
    const last = item.claim.state?.lastFireAt;
    const def = item.cached.def;
    if (item.claim.reclaimed || last == null || last >= item.claim.fireAt || !backpressureApplies(def)) {
      continue;
    }
    const fireAt = item.plan.enqueue?.fireAt ?? item.claim.fireAt;
    const jobId = occurrenceJobId(def.id, last);
    const behindAfterMs = Math.floor((fireAt - last) / 2);
    candidates.push({
      tag: item,
      queue: def.queue,
      jobId,
      minWaitedMs: behindAfterMs,
      behindAfterMs,
      dueAt: last,
    });
  }
  return coalesceWaiting(candidates, now, deps, (c) => {
    c.tag.recheck = { queue: c.queue, jobId: c.jobId, minWaitedMs: c.behindAfterMs, dueAt: c.dueAt };
  });
}

/**
 * The occurrences marked `recheck` at their claim, now that they are due: coalesced if their previous
 * job still waits (one pipelined look-up, for those only). Returns the ones coalesced.
 */
export function holdBackWhenDue(items: readonly Item[], now: number, deps: Deps): Promise<Set<Item>> {
  const candidates = items.flatMap((i) => (i.recheck ? [{ tag: i, ...i.recheck }] : []));
  return coalesceWaiting(candidates, now, deps);
}

/** Look the previous jobs up; coalesce the occurrences whose job still waits. A failed look-up holds none. */
async function coalesceWaiting<C extends PreviousJob<Item>>(
  candidates: readonly C[],
  now: number,
  deps: Deps,
  onYoung?: (candidate: C) => void,
): Promise<Set<Item>> {
  if (candidates.length === 0) return new Set();
  let held: Set<Item>;
  try {
    const found = await stillWaiting(candidates, (q) => deps.queue(q), now);
    held = found.waiting;
    if (onYoung) for (const c of candidates) if (found.young.has(c.tag)) onYoung(c);
  } catch (err) {
    deps.logger.warn({ err }, 'bullbeat: backpressure look-up failed; enqueueing as usual');
    return new Set();
  }
  for (const item of [...held]) {
    try {
      const input = planInput(item, now);
      const budget = deps.options.triggerBudgetMs;
      const waiting = item.claim.state?.lastFireAt ?? item.claim.fireAt;
      const plan = metered(item.cached, budget, () =>
        withTimeBudget(budget, () => coalescedPlan(input, item.plan, waiting, item.cached.span)),
      );
      item.plan = plan;
      // the next coalesced occurrence over the same waiting job goes on from this span's end
      const span = plan.coalesced?.span;
      if (span) item.cached.span = { waiting, from: span.from, to: span.to, count: span.count };
    } catch (err) {
      // as in coalesceBehind: a trigger that throws (or overruns its budget) further on leaves the
      // claimed occurrence to be enqueued as planned, and the next claim's planning errors the schedule
      deps.logger.warn(
        { err, scheduleId: item.cached.def.id },
        'bullbeat: trigger failed coalescing; enqueueing',
      );
      held.delete(item);
      continue;
    }
    item.batch.left--;
    item.batch.ready.push(item);
  }
  return held;
}
