import type { CoalesceCause, ScheduleDefinition, SkipReason } from '../../store/index.js';
import { checkedNextFire } from '../../triggers/checked-next-fire.js';
import type { Trigger } from '../../triggers/trigger.js';

/** How many occurrences one plan walks at most (a scheduler down for a day with a 0.1 s interval). */
export const MAX_WALK = 10_000;

/** One claimed occurrence: the schedule, its claimed due time and its run count so far. */
export interface PlanInput {
  def: ScheduleDefinition;
  trigger: Trigger;
  /** The claimed due time: the only occurrence this plan may enqueue. */
  fireAt: number;
  /** Redis time at the claim. */
  now: number;
  /** Runs enqueued so far (for `maxRuns`). */
  fired: number;
}

/**
 * What to do with one claim. At most one job: the claimed occurrence `input.fireAt`, so that a retry is
 * idempotent, or, when the claim is a period late or more (`behindPlan`), the latest occurrence due.
 */
export interface OccurrencePlan {
  /** Enqueue the claimed occurrence. */
  enqueue?: { fireAt: number; kind: 'scheduled' | 'catch-up' };
  /** Occurrences recorded as missed, oldest first (the newest `historyLimit` are kept as records). */
  missed: { fireAt: number; reason: SkipReason }[];
  /** Under `misfire: 'once'`: the occurrence that will run for a series of late ones, and the series' length. */
  coalesceInto?: { fireAt: number; count: number };
  /** The next due time, or null when the schedule is complete. */
  next: number | null;
  /** Lateness of the claimed occurrence (now - fireAt). */
  lateMs: number;
  /**
   * Backpressure: the claimed occurrence was not enqueued because the schedule's previous one was
   * still waiting in its queue (`consumer-behind`, see `coalescedPlan`), or because a later one was
   * due already when it was claimed (`scheduler-behind`, see `behindPlan`); `count` occurrences counted
   * as `coalesced`, each recorded (the newest `historyLimit`). `fireAts`: the newest of them (at most
   * 100), `fireAt` the claimed one. `standIn`: the occurrence whose run stands for them (the waiting
   * job's, or the latest one's, which the next claim enqueues); `span`: every occurrence it stands for.
   */
  coalesced?: {
    fireAt: number;
    count: number;
    fireAts: number[];
    cause: CoalesceCause;
    standIn: number;
    span: { from: number; to: number; count: number };
  };
}

/**
 * Decide one claim (pure; the misfire policy: `skip`, `once` or `all` past `misfireGraceMs`). Only the claimed occurrence `fireAt` is ever
 * enqueued: occurrences that must not run are recorded as missed and the due time advances to the
 * next candidate, which a following claim decides. With jitter the walk is random, but the enqueued
 * job is always the claimed one, so a crashed claim that is re-planned cannot enqueue a different one.
 *
 * Only `null` from the trigger means exhausted: a throw, or a time that breaks the contract (not an
 * integer in range, not after the last one), throws a `TriggerError` (the fire loop marks the
 * schedule errored; see `checkedNextFire`).
 */
export function planOccurrence(input: PlanInput): OccurrencePlan {
  const { def, trigger, fireAt, now } = input;
  const lateMs = now - fireAt;
  // Fast path, the common case: on time, inside its bounds.
  if (
    lateMs <= def.misfireGraceMs &&
    (def.endAt === undefined || fireAt <= def.endAt) &&
    (def.maxRuns === undefined || input.fired + 1 < def.maxRuns) &&
    (def.catchUpWindowMs === undefined || fireAt >= now - def.catchUpWindowMs)
  ) {
    let next = checkedNextFire(trigger, fireAt, now);
    if (next !== null && def.endAt !== undefined && next > def.endAt) next = null;
    return { enqueue: { fireAt, kind: 'scheduled' }, missed: [], next, lateMs };
  }
  const step = (o: number): number | null => {
    const n = checkedNextFire(trigger, o, now);
    if (n === null) return null;
    if (def.endAt !== undefined && n > def.endAt) return null;
    return n;
  };
  const exhausted = (): OccurrencePlan => ({ missed: [], next: null, lateMs });
  if (def.endAt !== undefined && fireAt > def.endAt) return exhausted();
  if (def.maxRuns !== undefined && input.fired >= def.maxRuns) return exhausted();

  const isTooOld = (o: number) => def.catchUpWindowMs !== undefined && o < now - def.catchUpWindowMs;
  const isLate = (o: number) => now > o + def.misfireGraceMs;

  // Older than the catch-up window: never run, whatever the policy.
  if (isTooOld(fireAt)) {
    const missed: OccurrencePlan['missed'] = [];
    let o: number | null = fireAt;
    while (o !== null && isTooOld(o) && missed.length < MAX_WALK) {
      missed.push({ fireAt: o, reason: 'catch-up-window' });
      o = step(o);
    }
    return { missed, next: o, lateMs };
  }

  const runIt = (kind: 'scheduled' | 'catch-up'): OccurrencePlan => {
    let next = step(fireAt);
    if (def.maxRuns !== undefined && input.fired + 1 >= def.maxRuns) next = null;
    return { enqueue: { fireAt, kind }, missed: [], next, lateMs };
  };
  if (!isLate(fireAt)) return runIt('scheduled');

  // A series of late occurrences starting at fireAt.
  const limit = def.misfire === 'all' ? def.maxCatchUp + 1 : MAX_WALK;
  const series: number[] = [];
  let after: number | null = fireAt;
  while (after !== null && isLate(after) && series.length < limit) {
    series.push(after);
    after = step(after);
  }
  const truncated = after !== null && isLate(after);

  if (def.misfire === 'skip') {
    return { missed: series.map((o) => ({ fireAt: o, reason: 'misfire' })), next: after, lateMs };
  }
  if (def.misfire === 'once') {
    if (series.length === 1 && !truncated) return runIt('catch-up');
    if (truncated) {
      return { missed: series.map((o) => ({ fireAt: o, reason: 'misfire' })), next: after, lateMs };
    }
    const last = series[series.length - 1] as number;
    return {
      missed: series.slice(0, -1).map((o) => ({ fireAt: o, reason: 'misfire' })),
      coalesceInto: { fireAt: last, count: series.length },
      next: last,
      lateMs,
    };
  }
  // 'all': run each late occurrence, the newest maxCatchUp of them.
  if (series.length <= def.maxCatchUp && !truncated) return runIt('catch-up');
  if (def.maxCatchUp === 0) {
    return { missed: series.map((o) => ({ fireAt: o, reason: 'max-catch-up' })), next: after, lateMs };
  }
  // More than maxCatchUp late ones: count them all (bounded), miss the oldest beyond the cap.
  const all = [...series];
  while (after !== null && isLate(after) && all.length < MAX_WALK) {
    all.push(after);
    after = step(after);
  }
  const drop = all.length - def.maxCatchUp;
  return {
    missed: all.slice(0, drop).map((o) => ({ fireAt: o, reason: 'max-catch-up' })),
    next: all[drop] ?? after,
    lateMs,
  };
}

/**
 * True when a schedule's occurrence is coalesced while its previous one still waits in the queue
 * (backpressure): always, except under `misfire: 'all'` with an overlap under which every occurrence
 * runs (`bufferAll`, `allowAll`): that schedule asks for each one.
 */
export function backpressureApplies(def: ScheduleDefinition): boolean {
  const mode = def.run.slot.mode;
  return def.misfire !== 'all' || (mode !== 'bufferAll' && mode !== 'none');
}

/**
 * A waiting job's span as an earlier coalesced plan of the same schedule found it: the job's fire time
 * (`waiting`), and the span's first occurrence, last one (`to`) and count then.
 */
export interface SpanSoFar {
  waiting: number;
  from: number;
  to: number;
  count: number;
}

/**
 * The plan of a claimed occurrence that backpressure coalesces: nothing enqueued, counted as
 * `coalesced`, and the next due time as if this occurrence had not counted for `maxRuns` (it did
 * not run). `waiting`: the fire time of the previous occurrence, whose job still waits and stands for
 * this one. `soFar`: the span the schedule's previous coalesced plan found, if it was over the same
 * waiting job: the walk goes on from its end instead of from the job (a consumer an hour behind an
 * every-second schedule would otherwise cost 3,600 trigger steps per occurrence, each claim more than
 * the one before).
 */
export function coalescedPlan(
  input: PlanInput,
  plan: OccurrencePlan,
  waiting: number,
  soFar?: SpanSoFar,
): OccurrencePlan {
  const { def, trigger, fireAt, now } = input;
  const fire = plan.enqueue?.fireAt ?? fireAt;
  let next = plan.next;
  if (next === null && def.maxRuns !== undefined) {
    next = checkedNextFire(trigger, fire, now);
    if (next !== null && def.endAt !== undefined && next > def.endAt) next = null;
  }
  // the waiting job stands for every occurrence since it (each coalesced in turn while it waited); the
  // span so far ended at an occurrence (a claimed fire time), so the ones after it follow from it
  const known = soFar !== undefined && soFar.waiting === waiting && soFar.to < fire ? soFar : undefined;
  let from = known ? known.from : fire;
  let count = known ? Math.min(known.count + 1, MAX_WALK) : 1;
  try {
    const start = known ? known.to : waiting;
    for (let o = checkedNextFire(trigger, start, now); o !== null && o < fire && count < MAX_WALK; ) {
      if (count === 1) from = o;
      count++;
      o = checkedNextFire(trigger, o, now);
    }
  } catch {
    // a trigger that throws walking back: the span is this occurrence (its next claim errors it)
    [from, count] = [fire, 1];
  }
  // a plan coalescing already (the scheduler behind: `behindPlan`) keeps those it coalesced, with its
  // stand-in now coalesced too: the waiting job stands for them all
  const before = plan.coalesced;
  const fireAts = before ? [...before.fireAts, fire].slice(-100) : [fire];
  return {
    missed: plan.missed,
    next,
    lateMs: plan.lateMs,
    coalesced: {
      fireAt: before?.fireAt ?? fire,
      count: (before?.count ?? 0) + 1,
      fireAts,
      cause: 'consumer-behind',
      standIn: waiting,
      span: { from, to: fire, count },
    },
  };
}

/**
 * The plan of a claimed occurrence that is superseded already when claimed: the schedule's next
 * occurrence is due too (the claim came more than a period late: every replica was down for a moment,
 * or more is due than this box can claim). Enqueued as claimed, it would wait in the queue in front of
 * a later occurrence that is due as well, and the next claim, as late, would be behind again. Under
 * backpressure the latest occurrence due is enqueued instead, in this claim, standing for the claimed
 * one and every one due since (coalesced, `scheduler-behind`), and the next due time is the one after
 * it: a replica that runs behind runs each schedule once per claim, at the rate it can claim, and never
 * falls to zero runs however far behind it is.
 *
 * Undefined when the plan does not enqueue, when its next occurrence is not due yet, or when it is late
 * by `graceMs` or less: the delay a take-over explains (a replica died holding the schedule's previous
 * claim; its lease lapsed and another took it over, and the occurrences after it come due together),
 * which is caught up by enqueueing them, never by coalescing them in place of the take-over.
 *
 * A re-plan of the same claim (a take-over after a crash between the add and the completion) plans the
 * claimed occurrence afresh (reclaimed claims are not coalesced, see `coalesceBehind`): it may run the
 * claimed occurrence beside the stand-in, two distinct occurrences, never one twice.
 */
export function behindPlan(input: PlanInput, plan: OccurrencePlan, graceMs = 0): OccurrencePlan | undefined {
  const { def, trigger, now } = input;
  // (a claim that is the schedule's last run, by `maxRuns` or `endAt`, has no next: it runs as claimed)
  if (!plan.enqueue || plan.next === null || plan.next > now) return undefined;
  if (now - plan.enqueue.fireAt <= graceMs) return undefined;
  const fireAts = [plan.enqueue.fireAt];
  let latest = plan.next;
  let count = 1;
  let next: number | null;
  for (;;) {
    next = checkedNextFire(trigger, latest, now);
    if (next !== null && def.endAt !== undefined && next > def.endAt) next = null;
    if (next === null || next > now || count >= MAX_WALK) break;
    fireAts.push(latest);
    if (fireAts.length > 100) fireAts.shift();
    latest = next;
    count++;
  }
  return {
    enqueue: { fireAt: latest, kind: plan.enqueue.kind },
    missed: plan.missed,
    next,
    lateMs: now - latest,
    coalesced: {
      fireAt: plan.enqueue.fireAt,
      count,
      fireAts,
      cause: 'scheduler-behind',
      standIn: latest,
      span: { from: plan.enqueue.fireAt, to: fireAts[fireAts.length - 1]!, count },
    },
  };
}
