import { TriggerBudgetError } from '../../errors/index.js';
import { formatSpread } from '../../store/index.js';
import { isSerializableTrigger } from '../../triggers/is-serializable-trigger.js';
import { shortestGapMs } from '../../triggers/shortest-gap.js';
import { withTimeBudget } from '../../triggers/time-budget.js';
import type { Trigger, TriggerJSON } from '../../triggers/trigger.js';
import { triggerFromJSON } from '../../triggers/trigger-from-json.js';
import { withoutJitter } from '../../triggers/without-jitter.js';

/**
 * A spread must fit between two occurrences: an occurrence fires before the next one is due, so a
 * schedule's runs keep their order and its overlap rules their meaning. Refused (naming `spread`) when
 * it is longer than the shortest gap between the trigger's planned instants (jitter left out) over its
 * next occurrences from `now`, or than the walk can measure within the trigger time budget.
 */
export function checkSpread(
  spreadMs: number,
  trigger: Trigger,
  now: number,
  budgetMs: number,
  fail: (field: string, reason: string) => never,
): void {
  const planned = isSerializableTrigger(trigger)
    ? triggerFromJSON(withoutJitter((trigger as unknown as { toJSON(): TriggerJSON }).toJSON()))
    : trigger;
  let gap: number | undefined;
  try {
    gap = withTimeBudget(budgetMs, () => shortestGapMs(planned, now));
  } catch (err) {
    if (err instanceof TriggerBudgetError) {
      fail(
        'spread',
        `cannot be checked: the trigger's occurrences cannot be walked within the trigger time budget (${budgetMs} ms)`,
      );
    }
    return; // a trigger that throws: the fire path records it
  }
  if (gap !== undefined && spreadMs > gap) {
    fail(
      'spread',
      `${formatSpread(spreadMs)} is longer than the trigger's shortest gap between occurrences (${formatSpread(gap)}): an occurrence must fire before the next one is due`,
    );
  }
}
