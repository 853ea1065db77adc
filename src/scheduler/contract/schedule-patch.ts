import { ScheduleOptionsError, TriggerError } from '../../errors/index.js';
import type { ScheduleDefinition } from '../../store/index.js';
import { expectInputOf } from '../../store/index.js';
import type { Trigger, TriggerJSON } from '../../triggers/trigger.js';
import { triggerFromJSON } from '../../triggers/trigger-from-json.js';
import type { ScheduleOptions } from './schedule-options.js';

/**
 * `update(id, patch)`: the options to change (`null` removes an optional one, e.g. `endAt: null`), and
 * the trigger, as a trigger object or its JSON. Everything not given keeps its stored value. The id
 * cannot change; middleware is process-local and is not part of a stored schedule.
 */
export type SchedulePatch = {
  [K in Exclude<keyof ScheduleOptions, 'id' | 'middleware'>]?: ScheduleOptions[K] | null;
} & {
  /** A new trigger (any object with `nextFire`, or a built-in trigger's JSON). */
  trigger?: Trigger | TriggerJSON;
};

/** The `ScheduleOptions` a stored definition was made with (every option resolved). */
export function optionsOfDefinition(def: ScheduleDefinition): ScheduleOptions {
  return {
    id: def.id,
    name: def.name,
    queue: def.queue,
    args: def.args,
    ...(def.data !== undefined && { data: def.data }),
    ...(def.payload !== undefined && { payload: def.payload }),
    maxInstances: def.run.maxInstances,
    overlap: def.run.overlap,
    ...(def.run.exclusionGroup !== undefined && { exclusionGroup: def.run.exclusionGroup }),
    ...(def.run.exclusionWaitMs !== undefined && { exclusionWaitMs: def.run.exclusionWaitMs }),
    ...(def.run.timeoutMs !== undefined && { timeoutMs: def.run.timeoutMs }),
    ...(def.run.pauseOnFailure !== undefined && { pauseOnFailure: def.run.pauseOnFailure }),
    attempts: def.attempts,
    ...(def.backoff !== undefined && { backoff: def.backoff }),
    ...(def.jobOptions !== undefined && { jobOptions: def.jobOptions }),
    misfire: def.misfire,
    misfireGraceMs: def.misfireGraceMs,
    ...(def.catchUpWindowMs !== undefined && { catchUpWindowMs: def.catchUpWindowMs }),
    maxCatchUp: def.maxCatchUp,
    ...(def.startAt !== undefined && { startAt: def.startAt }),
    ...(def.endAt !== undefined && { endAt: def.endAt }),
    ...(def.maxRuns !== undefined && { maxRuns: def.maxRuns }),
    ...(def.immediately === true && { immediately: true }),
    ...(def.labels !== undefined && { labels: def.labels }),
    ...(def.expect !== undefined && { expect: expectInputOf(def.expect) }),
  };
}

/** Options that cannot be removed: they always have a value. */
const REQUIRED = new Set(['name', 'queue']);

/**
 * The stored options with the patch applied, and the trigger to use (the patch's, else `current`).
 * Only the patch's shape is judged here (an id, middleware, a `null` on a required option, a trigger
 * that cannot be read); the merged options are then checked by the schedule schema, like new ones.
 */
export function applyPatch(
  def: ScheduleDefinition,
  patch: SchedulePatch,
  current: Trigger | undefined,
): { options: ScheduleOptions; trigger: Trigger } {
  const fail = (field: string, reason: string): never => {
    throw new ScheduleOptionsError(def.id, field, reason);
  };
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    fail('patch', 'must be an object of the options to change');
  }
  const { trigger: given, ...fields } = patch as SchedulePatch & Record<string, unknown>;
  if ('id' in fields && fields.id !== undefined)
    fail('id', 'cannot be changed (create a new schedule instead)');
  if ('middleware' in fields) fail('middleware', 'is process-local: it is given in code, not stored');
  const options: Record<string, unknown> = { ...optionsOfDefinition(def) };
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (v === null) {
      if (REQUIRED.has(k)) fail(k, 'cannot be removed');
      delete options[k];
    } else options[k] = v;
  }
  let trigger = current;
  if (given !== undefined) trigger = readTrigger(def.id, given);
  if (!trigger) {
    fail(
      'trigger',
      def.trigger.type === 'custom'
        ? `the stored trigger (${def.trigger.kind}) is not defined in this process: give a new one`
        : 'cannot be read: give a new one',
    );
  }
  return { options: options as ScheduleOptions, trigger: trigger as Trigger };
}

function readTrigger(id: string, given: unknown): Trigger {
  if (typeof given === 'object' && given !== null && typeof (given as Trigger).nextFire === 'function') {
    return given as Trigger;
  }
  try {
    return triggerFromJSON(given);
  } catch (err) {
    if (err instanceof TriggerError) {
      const field = err.field === '(root)' ? 'trigger' : `trigger.${err.field}`;
      throw new ScheduleOptionsError(id, field, err.reason, { cause: err });
    }
    throw err;
  }
}
