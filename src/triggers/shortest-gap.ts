import type { Trigger } from './trigger.js';

/** How many occurrences `shortestGapMs` walks: past a year of a daily trigger, so a DST day is among them. */
export const GAP_WALK_STEPS = 500;

/**
 * The shortest time (ms) between two consecutive occurrences of `trigger` over its next `steps`
 * occurrences from `from` (undefined when it fires fewer than twice). A DST night is walked like any
 * other, so a gap it shortens is found when it lies inside the walk. Give a trigger without jitter:
 * the planned instants are what is measured.
 */
export function shortestGapMs(trigger: Trigger, from: number, steps = GAP_WALK_STEPS): number | undefined {
  let prev = trigger.nextFire(null, from);
  if (prev === null) return undefined;
  let shortest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < steps; i++) {
    const next: number | null = trigger.nextFire(prev, prev);
    if (next === null) break;
    shortest = Math.min(shortest, next - prev);
    prev = next;
  }
  return Number.isFinite(shortest) ? shortest : undefined;
}
