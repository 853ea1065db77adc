import { z } from 'zod';
import { SelectorError } from '../src/errors/index.js';
import { backfillFields, type ScheduleManyItem } from '../src/scheduler/index.js';
import { parseSelector, type Selector } from '../src/store/index.js';
import {
  checkPast,
  createSchema,
  InputError,
  inputOptions,
  parseInput,
  toTrigger,
} from './schedule-input.js';

/** The most schedules one batch (`POST /api/schedules:batch`, `schedule:import`) may hold. */
export const MAX_BATCH = 100_000;

/** Each item of a batch: `POST /api/schedules`' body, without `replace` (a batch creates or replaces). */
const itemSchema = createSchema.omit({ replace: true });

/**
 * The items of a batch, each read as `POST /api/schedules` reads its body (the same schema, trigger and
 * past-date rules); the first bad one is an `InputError` named by `where(i)` and its field
 * (`schedules[3].labels.my key`, `line 4: trigger.expression`). Nothing is written by reading.
 */
export function batchItems(
  bodies: readonly unknown[],
  where: (i: number) => string,
  now: number,
): ScheduleManyItem[] {
  if (bodies.length > MAX_BATCH) {
    throw new InputError('schedules', `at most ${MAX_BATCH} schedules in one batch, got ${bodies.length}`);
  }
  return bodies.map((body, i) => {
    const input = parseInput(itemSchema, body, where(i));
    const trigger = toTrigger(input.trigger, `${where(i)}.trigger`);
    const { name, trigger: _t, queue, allowPast, ...rest } = input;
    try {
      checkPast(trigger, allowPast, now);
    } catch (err) {
      if (err instanceof InputError) throw new InputError(`${where(i)}.${err.field}`, err.reason);
      throw err;
    }
    return { target: { name, ...(queue !== undefined && { queue }) }, trigger, options: inputOptions(rest) };
  });
}

/** A selector given in a body or query, as an `InputError` naming `field` when it does not parse. */
export function selectorInput(text: unknown, field = 'selector'): Selector {
  try {
    return parseSelector(text, field);
  } catch (err) {
    if (err instanceof SelectorError) throw new InputError(field, `${err.reason} at ${err.position}`);
    throw err;
  }
}

/** `POST /api/schedules:batch`. */
export const batchSchema = z.strictObject({
  schedules: z.array(z.unknown(), {
    error: 'must be an array of schedules (each as POST /api/schedules takes)',
  }),
});

/** `POST /api/schedules:pause|resume|remove`: the selector, and what the one-schedule verb takes. */
export const bulkPauseSchema = z.strictObject({
  selector: z.string({ error: 'required: a label selector, e.g. "tenant=acme,team!=ops"' }),
  note: z.string({ error: 'must be a string (at most 500 characters)' }).optional(),
  onBehalfOf: z.string({ error: 'must be a string' }).optional(),
});
export const bulkResumeSchema = z.strictObject({
  selector: z.string({ error: 'required: a label selector, e.g. "tenant=acme,team!=ops"' }),
  policy: z.string({ error: 'must be "skip", "once" or "all"' }).optional(),
  maxCatchUp: z.number({ error: 'must be a number' }).optional(),
  onBehalfOf: z.string({ error: 'must be a string' }).optional(),
});
export const bulkRemoveSchema = z.strictObject({
  selector: z.string({ error: 'required: a label selector, e.g. "tenant=acme,team!=ops"' }),
  onBehalfOf: z.string({ error: 'must be a string' }).optional(),
});
/** `POST /api/schedules:backfill`: a selector and a backfill's own fields (the library's rule per field). */
export const bulkBackfillSchema = z.strictObject({
  selector: z.string({ error: 'required: a label selector, e.g. "tenant=acme,team!=ops"' }),
  ...backfillFields,
  onBehalfOf: z.string({ error: 'must be a string' }).optional(),
});

/** What is wrong with a selector, as a sentence for a page (`selector: "a b": expected ... at 2`), or undefined. */
export function selectorProblem(text: string): string | undefined {
  try {
    parseSelector(text, 'selector');
    return undefined;
  } catch (err) {
    if (err instanceof SelectorError) return err.message;
    throw err;
  }
}
