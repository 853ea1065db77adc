import type { z } from 'zod';
import { ScheduleOptionsError } from '../errors/index.js';
import type { Middleware } from '../queue/pipeline.js';
import {
  type CustomTriggerJSON,
  definitionFrom,
  firstProblem,
  type ScheduleDefinition,
  type ScheduleSource,
  scheduleOptionsSchema,
} from '../store/definition-schema.js';
import { isSerializableTrigger } from '../triggers/is-serializable-trigger.js';
import type { Trigger, TriggerJSON } from '../triggers/trigger.js';
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
}

/** A definition plus the process-local parts that never go to Redis. */
export interface ResolvedSchedule {
  def: ScheduleDefinition;
  middleware: Middleware[];
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
  const trigger = serializeTrigger(input.trigger);
  const def = definitionFrom(
    { id: o.id as string, name: o.name as string, queue: o.queue as string, source: input.source, trigger },
    o,
  );
  return { def, middleware: (o.middleware ?? []) as Middleware[] };
}

/** A built-in trigger's JSON, or the custom marker. */
export function serializeTrigger(trigger: Trigger): TriggerJSON | CustomTriggerJSON {
  const toJSON = (trigger as { toJSON?: () => unknown }).toJSON;
  if (typeof toJSON === 'function' && isSerializableTrigger(trigger))
    return toJSON.call(trigger) as TriggerJSON;
  return { type: 'custom', kind: trigger.constructor?.name ?? 'Object' };
}
