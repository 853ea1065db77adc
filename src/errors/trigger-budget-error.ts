import { TriggerError } from './trigger-error.js';

/**
 * A trigger's `nextFire` used more than its time budget (`triggerBudgetMs`): the walk was stopped, and
 * the schedule is refused at definition, or errored when it fires.
 */
export class TriggerBudgetError extends TriggerError {
  override name = 'TriggerBudgetError';

  constructor(
    trigger: string,
    /** The budget (ms of this process's CPU) it overran. */
    readonly budgetMs: number,
    /** The call, when known: `nextFire(lastFire, now)`. */
    call = 'nextFire',
  ) {
    super(
      trigger,
      'nextFire',
      `${call} took more than ${budgetMs} ms (the trigger time budget, triggerBudgetMs): its exclusions or walk cannot be computed in time`,
    );
  }
}
