import { ScheduleOptionsError } from '../errors/index.js';
import type { Middleware } from '../queue/pipeline.js';
import { DEFAULT_RUN_OPTIONS } from '../store/job-payload.js';
import type { CustomTriggerJSON, ScheduleDefinition, ScheduleSource } from '../store/schedule-definition.js';
import { instantProblem } from '../triggers/instant-bounds.js';
import { isSerializableTrigger } from '../triggers/is-serializable-trigger.js';
import type { Trigger, TriggerJSON } from '../triggers/trigger.js';
import { jobOptionsProblem } from './job-options-schema.js';
import type { ScheduleOptions } from './schedule-options.js';

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
  /** True when the trigger is custom: only processes that define it in code can fire it. */
  codeOnly: boolean;
}

const MISFIRE = ['once', 'all', 'skip'] as const;

/** Apply defaults once and validate; errors name the schedule and the field. */
export function resolveScheduleOptions(input: ResolveInput): ResolvedSchedule {
  const o = input.options ?? {};
  const name = o.name ?? input.fallbackName;
  const id = o.id ?? name;
  const fail = (field: string, reason: string): never => {
    throw new ScheduleOptionsError(id, field, reason);
  };
  if (typeof name !== 'string' || name.length === 0) {
    fail('name', 'required: give options.name (the function is anonymous)');
  }
  if (typeof id !== 'string' || id.length === 0) fail('id', 'must be a non-empty string');
  const queue = o.queue ?? input.targetQueue ?? input.defaultQueue;
  if (typeof queue !== 'string' || queue.length === 0 || queue.includes(':')) {
    fail('queue', `must be a non-empty string without ":", got ${show(queue)}`);
  }
  const args = o.args ?? [];
  if (!Array.isArray(args)) fail('args', `must be an array, got ${show(args)}`);
  try {
    JSON.stringify([args, o.data]);
  } catch (err) {
    throw new ScheduleOptionsError(id, 'args', 'args and data must be JSON-serializable', { cause: err });
  }
  const int = (field: string, v: unknown, min: number): number | undefined => {
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      fail(field, `must be an integer >= ${min}, got ${show(v)}`);
    }
    return v as number;
  };
  // bounded (instant-bounds.ts) and whole: startAt rounded up, endAt down, so neither widens
  const instant = (field: string, v: unknown, whole: (ms: number) => number): number | undefined => {
    if (v === undefined) return undefined;
    const t = v instanceof Date ? v.getTime() : v;
    if (typeof t !== 'number' || !Number.isFinite(t))
      fail(field, `must be epoch ms or a valid Date, got ${show(v)}`);
    const problem = instantProblem(t as number);
    if (problem !== undefined) fail(field, problem);
    return whole(t as number);
  };
  const misfire = o.misfire ?? 'once';
  if (!MISFIRE.includes(misfire))
    fail('misfire', `must be one of "once", "all", "skip", got ${show(misfire)}`);
  if (o.coalesce !== undefined && typeof o.coalesce !== 'boolean')
    fail('coalesce', `must be a boolean, got ${show(o.coalesce)}`);
  const middleware = o.middleware ?? [];
  if (!Array.isArray(middleware) || middleware.some((m) => typeof m !== 'function')) {
    fail('middleware', 'must be an array of middleware functions');
  }
  if (o.exclusionGroup !== undefined && (typeof o.exclusionGroup !== 'string' || o.exclusionGroup === '')) {
    fail('exclusionGroup', `must be a non-empty string, got ${show(o.exclusionGroup)}`);
  }
  if (o.jobOptions !== undefined) {
    const problem = jobOptionsProblem(o.jobOptions);
    if (problem !== undefined) fail(problem.field, problem.reason);
  }
  const startAt = instant('startAt', o.startAt, Math.ceil);
  const endAt = instant('endAt', o.endAt, Math.floor);
  if (startAt !== undefined && endAt !== undefined && endAt < startAt)
    fail('endAt', 'must not be before startAt');

  if (typeof input.trigger?.nextFire !== 'function')
    fail('trigger', 'must be an object with a nextFire method');
  const json = serializeTrigger(input.trigger);
  const codeOnly = json.type === 'custom';

  const def: ScheduleDefinition = {
    id: id as string,
    name: name as string,
    queue,
    source: input.source,
    trigger: json,
    args,
    run: {
      maxInstances: int('maxInstances', o.maxInstances, 0) ?? DEFAULT_RUN_OPTIONS.maxInstances,
      coalesce: o.coalesce ?? DEFAULT_RUN_OPTIONS.coalesce,
      ...(o.exclusionGroup !== undefined && { exclusionGroup: o.exclusionGroup }),
      ...(o.exclusionWaitMs !== undefined && {
        exclusionWaitMs: int('exclusionWaitMs', o.exclusionWaitMs, 0),
      }),
      ...(o.timeoutMs !== undefined && { timeoutMs: int('timeoutMs', o.timeoutMs, 1) }),
    },
    attempts: int('attempts', o.attempts, 1) ?? 1,
    misfire,
    misfireGraceMs: int('misfireGraceMs', o.misfireGraceMs, 0) ?? 60_000,
    maxCatchUp: int('maxCatchUp', o.maxCatchUp, 0) ?? 1000,
    ...(o.data !== undefined && { data: o.data }),
    ...(o.backoff !== undefined && { backoff: o.backoff }),
    ...(o.jobOptions !== undefined && { jobOptions: o.jobOptions }),
    ...(o.catchUpWindowMs !== undefined && { catchUpWindowMs: int('catchUpWindowMs', o.catchUpWindowMs, 0) }),
    ...(startAt !== undefined && { startAt }),
    ...(endAt !== undefined && { endAt }),
    ...(o.maxRuns !== undefined && { maxRuns: int('maxRuns', o.maxRuns, 1) }),
  };
  return { def, middleware, codeOnly };
}

/** A built-in trigger's JSON, or the custom marker. */
export function serializeTrigger(trigger: Trigger): TriggerJSON | CustomTriggerJSON {
  const toJSON = (trigger as { toJSON?: () => unknown }).toJSON;
  if (typeof toJSON === 'function' && isSerializableTrigger(trigger))
    return toJSON.call(trigger) as TriggerJSON;
  return { type: 'custom', kind: trigger.constructor?.name ?? 'Object' };
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'function') return 'a function';
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
