import type { z } from 'zod';
import { ScheduleOptionsError, TriggerBudgetError, TriggerError } from '../../errors/index.js';
import type { Middleware } from '../../queue/pipeline.js';
import {
  type CustomTriggerJSON,
  definitionFrom,
  firstProblem,
  type ScheduleDefinition,
  type ScheduleSource,
  scheduleOptionsSchema,
} from '../../store/index.js';
import { CalendarTrigger, type OnExcluded } from '../../triggers/calendar-trigger.js';
import { checkedNextFire } from '../../triggers/checked-next-fire.js';
import { ExceptTrigger } from '../../triggers/except-trigger.js';
import type { ExceptEntry } from '../../triggers/exclusion.js';
import { isSerializableTrigger } from '../../triggers/is-serializable-trigger.js';
import { DEFAULT_TRIGGER_BUDGET_MS, withTimeBudgetTwice } from '../../triggers/time-budget.js';
import type { Trigger, TriggerJSON } from '../../triggers/trigger.js';
import { triggerFromJSON } from '../../triggers/trigger-from-json.js';
import { checkSpread } from './check-spread.js';
import type { ScheduleOptions } from './schedule-options.js';

// Every option of `ScheduleOptions` has its rule in the schema (a compile error names one that has not).
type Unchecked = Exclude<keyof ScheduleOptions, keyof z.input<typeof scheduleOptionsSchema>>;
export const everyOptionChecked: [Unchecked] extends [never] ? true : Unchecked = true;

/** What `resolveScheduleOptions` needs besides the caller's options. */
export interface ResolveInput {
  options: ScheduleOptions;
  /** The function's name or the target's name, used when `options.name` is absent. */
  fallbackName: string | undefined;
  defaultQueue: string;
  /** The target's queue, when the schedule has no local function. */
  targetQueue?: string | undefined;
  trigger: Trigger;
  source: ScheduleSource;
  /** The CPU time (ms) a built-in trigger's first fire time may take (default `DEFAULT_TRIGGER_BUDGET_MS`). */
  triggerBudgetMs?: number;
}

/** A definition plus the process-local parts that never go to Redis. */
export interface ResolvedSchedule {
  def: ScheduleDefinition;
  middleware: Middleware[];
  /** The trigger the schedule fires on: the one given, wrapped in an `ExceptTrigger` by `except`. */
  trigger: Trigger;
}

/**
 * Check the options with the store's one schema (`scheduleOptionsSchema`), then apply the defaults
 * once (`definitionFrom`); errors name the schedule and the field.
 */
export function resolveScheduleOptions(input: ResolveInput): ResolvedSchedule {
  const given = input.options ?? {};
  const name = given.name ?? input.fallbackName;
  const id = given.id ?? name;
  const fail = (field: string, reason: string): never => {
    throw new ScheduleOptionsError(typeof id === 'string' ? id : undefined, field, reason);
  };
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    fail('options', 'must be an object of schedule options');
  }
  if (typeof name !== 'string' || name.length === 0) {
    fail('name', 'required: give options.name (the function is anonymous)');
  }
  const queue = given.queue ?? input.targetQueue ?? input.defaultQueue;
  const parsed = scheduleOptionsSchema.safeParse({ ...given, name, id, queue });
  if (!parsed.success) {
    const { field, reason } = firstProblem(parsed.error);
    fail(field, reason);
  }
  const o = parsed.data!;
  if (typeof input.trigger?.nextFire !== 'function')
    fail('trigger', 'must be an object with a nextFire method');
  const unexcepted = o.except === undefined ? input.trigger : withExceptions(input.trigger, o.except, fail);
  const fires = withCalendar(unexcepted, o.calendar, o.onExcluded, fail);
  probeFirstFire(
    o.id as string,
    fires,
    input.triggerBudgetMs ?? DEFAULT_TRIGGER_BUDGET_MS,
    o.except !== undefined,
    fail,
  );
  const budgetMs = input.triggerBudgetMs ?? DEFAULT_TRIGGER_BUDGET_MS;
  if (o.spread !== undefined) checkSpread(o.spread, fires, Date.now(), budgetMs, fail);
  const trigger = serializeTrigger(fires);
  const { except: _, calendar: _calendar, onExcluded: _onExcluded, ...rest } = o;
  const def = definitionFrom(
    { id: o.id as string, name: o.name as string, queue: o.queue as string, source: input.source, trigger },
    rest,
  );
  return { def, middleware: (o.middleware ?? []) as Middleware[], trigger: fires };
}

/**
 * `trigger` minus the `except` entries (JSON triggers among them decoded); on an `ExceptTrigger` the
 * entries replace its own, and an empty list unwraps it. An exclusion that leaves no occurrence at
 * all (probed from now) is refused here, naming `except`.
 */
function withExceptions(
  trigger: Trigger,
  entries: readonly unknown[],
  fail: (field: string, reason: string) => never,
): Trigger {
  const base = trigger instanceof ExceptTrigger ? trigger.trigger : trigger;
  if (entries.length === 0) return base;
  let wrapped: ExceptTrigger;
  try {
    const decoded = entries.map((e, i): ExceptEntry => {
      if (typeof e === 'string' || typeof (e as Trigger).nextFire === 'function') return e as ExceptEntry;
      try {
        return triggerFromJSON(e);
      } catch (err) {
        if (err instanceof TriggerError) {
          const at = err.field === '(root)' ? '' : `.${err.field}`;
          return fail(`except[${i}]${at}`, err.reason);
        }
        throw err;
      }
    });
    wrapped = new ExceptTrigger(base, decoded);
  } catch (err) {
    if (err instanceof TriggerError && err.trigger === 'ExceptTrigger') return fail(err.field, err.reason);
    throw err;
  }
  return wrapped;
}

/** `trigger` on the named calendar, when one is given; `onExcluded` needs one. */
function withCalendar(
  trigger: Trigger,
  calendar: string | undefined,
  onExcluded: OnExcluded | undefined,
  fail: (field: string, reason: string) => never,
): Trigger {
  const base = trigger instanceof CalendarTrigger ? trigger.trigger : trigger;
  if (calendar === undefined) {
    if (onExcluded !== undefined) fail('onExcluded', 'needs a calendar: give calendar: "<name>" with it');
    return trigger;
  }
  try {
    return new CalendarTrigger(base, calendar, onExcluded === undefined ? {} : { onExcluded });
  } catch (err) {
    if (err instanceof TriggerError && err.trigger === 'CalendarTrigger') return fail(err.field, err.reason);
    throw err;
  }
}

/**
 * A built-in trigger's first fire time, computed once under the trigger time budget: one that cannot be
 * computed within it is refused (a scheduler would error it at its first claim), as is an exclusion that
 * leaves no occurrence at all (probed from now). A custom trigger is left to the fire path, which
 * records what it does. A built-in trigger is pure: one over the budget is probed once more before it
 * is refused (`withTimeBudgetTwice`), so that a pause of the process (a garbage collection counted as
 * CPU, among 100,000 schedules defined at once) never refuses a healthy one.
 */
function probeFirstFire(
  id: string,
  trigger: Trigger,
  budgetMs: number,
  byExcept: boolean,
  fail: (field: string, reason: string) => never,
): void {
  if (!isSerializableTrigger(trigger)) return;
  try {
    withTimeBudgetTwice(budgetMs, true, () => checkedNextFire(trigger, null, Date.now()));
  } catch (err) {
    if (err instanceof TriggerBudgetError) {
      fail(
        byExcept ? 'except' : 'trigger',
        `the next fire time of "${id}" cannot be computed within the trigger time budget (${budgetMs} ms of CPU, triggerBudgetMs)`,
      );
    }
    // only the exclusions' own verdict; a wrapped trigger that throws is the fire path's to record
    const cause = err instanceof TriggerError ? err.cause : undefined;
    if (cause instanceof TriggerError && cause.trigger === 'ExceptTrigger' && cause.field === 'except') {
      fail('except', cause.reason);
    }
  }
}

/** A built-in trigger's JSON, or the custom marker. */
export function serializeTrigger(trigger: Trigger): TriggerJSON | CustomTriggerJSON {
  const toJSON = (trigger as { toJSON?: () => unknown }).toJSON;
  if (typeof toJSON === 'function' && isSerializableTrigger(trigger))
    return toJSON.call(trigger) as TriggerJSON;
  return { type: 'custom', kind: trigger.constructor?.name ?? 'Object' };
}
