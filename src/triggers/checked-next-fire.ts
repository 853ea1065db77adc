import { TriggerBudgetError } from '../errors/trigger-budget-error.js';
import { TriggerError } from '../errors/trigger-error.js';
import { instantProblem } from './instant-bounds.js';
import { show } from './show-value.js';
import { checkTimeBudget, withTimeBudget } from './time-budget.js';
import type { Trigger } from './trigger.js';

/** A trigger's name for messages: its class name, `custom trigger` for a plain object. */
export function triggerName(trigger: Trigger): string {
  const name = (trigger as { constructor?: { name?: string } }).constructor?.name;
  return name && name !== 'Object' ? name : 'custom trigger';
}

/**
 * `trigger.nextFire(lastFire, now)`, holding it to the contract: `null` (exhausted) or an integer
 * epoch ms in range, after `lastFire` when it has fired. Anything else, or a throw, is a
 * `TriggerError` (field `nextFire`) naming the trigger and the value, with what was thrown as `cause`.
 * Under a time budget (`budgetMs`, or the `withTimeBudget` in progress) a call that overruns it is a
 * `TriggerBudgetError`: a built-in walk is stopped at the budget, a custom trigger judged on return.
 */
export function checkedNextFire(
  trigger: Trigger,
  lastFire: number | null,
  now: number,
  budgetMs?: number,
): number | null {
  if (budgetMs !== undefined) return withTimeBudget(budgetMs, () => checkedNextFire(trigger, lastFire, now));
  let next: unknown;
  try {
    next = trigger.nextFire(lastFire, now);
    checkTimeBudget();
  } catch (err) {
    if (err instanceof TriggerBudgetError)
      throw new TriggerBudgetError(triggerName(trigger), err.budgetMs, callText(lastFire, now));
    const what = err instanceof Error ? `${err.name}: ${err.message}` : show(err);
    throw new TriggerError(triggerName(trigger), 'nextFire', `${callText(lastFire, now)} threw ${what}`, {
      cause: err,
    });
  }
  if (next === null) return null;
  const fail = (why: string): never => {
    throw new TriggerError(
      triggerName(trigger),
      'nextFire',
      `${callText(lastFire, now)} returned ${show(next)}: ${why}`,
    );
  };
  if (typeof next !== 'number') return fail('must be a number (epoch ms) or null');
  const problem = instantProblem(next);
  if (problem !== undefined) {
    const why = problem.slice(problem.indexOf(' is ') + 1);
    throw new TriggerError(
      triggerName(trigger),
      'nextFire',
      `${callText(lastFire, now)} returned ${show(next)}, which ${why}`,
    );
  }
  if (!Number.isInteger(next)) return fail('must be a whole number of milliseconds');
  if (lastFire !== null && next <= lastFire) return fail(`must be after the last fire time ${lastFire}`);
  return next;
}

/** The call as messages name it (made only for a message: `checkedNextFire` runs at every plan). */
function callText(lastFire: number | null, now: number): string {
  return `nextFire(${lastFire}, ${now})`;
}
