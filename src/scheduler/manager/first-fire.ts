import type { ScheduleDefinition } from '../../store/index.js';
import { checkedNextFire } from '../../triggers/checked-next-fire.js';
import type { Trigger } from '../../triggers/trigger.js';

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
