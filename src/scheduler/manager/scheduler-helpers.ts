import type { RunCounter } from '../../store/run-history.js';
import type { ScheduleDefinition } from '../../store/schedule-definition.js';
import type { ScheduleState } from '../../store/schedule-state.js';
import { checkedNextFire } from '../../triggers/checked-next-fire.js';
import type { Trigger } from '../../triggers/trigger.js';
import type { SchedulerStats } from './scheduler-manager-types.js';

/** Sillo's stats from every schedule's state and the deployment's run counters. */
export function statsOf(
  states: Iterable<ScheduleState>,
  totals: Record<RunCounter, number>,
  uptime: number,
  erroredTotal = 0,
): SchedulerStats {
  let jobsTotal = 0;
  let jobsActive = 0;
  let jobsPaused = 0;
  let jobsCompleted = 0;
  let jobsErrored = 0;
  for (const s of states) {
    jobsTotal++;
    if (s.status === 'a') jobsActive++;
    else if (s.status === 'c') jobsCompleted++;
    else if (s.status === 'e') jobsErrored++;
    else jobsPaused++;
  }
  const { runs, errors, skipped, missed, coalesced } = totals;
  return {
    jobsTotal,
    jobsActive,
    jobsPaused,
    jobsCompleted,
    jobsErrored,
    runs,
    errors,
    skipped,
    missed,
    coalesced,
    erroredTotal,
    uptime,
  };
}

/**
 * The first due time of a new (or retimed) schedule: after now, not before startAt, not after endAt.
 * A trigger that throws or answers an invalid time throws a `TriggerError` (see `checkedNextFire`).
 */
export function firstFire(def: ScheduleDefinition, trigger: Trigger, now: number): number | null {
  const after = def.startAt !== undefined ? Math.max(now, def.startAt - 1) : now;
  const next = checkedNextFire(trigger, null, after);
  if (next === null) return null;
  if (def.endAt !== undefined && next > def.endAt) return null;
  return next;
}
