import { DateTime } from 'luxon';
import { z } from 'zod';
import { TriggerError } from '../src/errors/index.js';
import type { ScheduleOptions } from '../src/scheduler/schedule-options.js';
import type { ScheduleDefinition } from '../src/store/schedule-definition.js';
import { triggerFromJSON } from '../src/triggers/index.js';
import type { SerializableTrigger, TriggerJSON } from '../src/triggers/trigger.js';

/** A request body or query that the API cannot use: answered 400 with the field named. */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

const int = (min: number) => z.number().int().min(min);
const instant = z.union([z.number(), z.string()]);

/** The fields a created (or updated) schedule may set; every one validated. */
const optionsShape = {
  id: z.string().min(1).max(512).optional(),
  queue: z
    .string()
    .min(1)
    .max(256)
    .refine((q) => !q.includes(':'), 'must not contain ":"')
    .optional(),
  args: z.array(z.unknown()).optional(),
  data: z.unknown().optional(),
  maxInstances: int(0).optional(),
  coalesce: z.boolean().optional(),
  attempts: int(1).optional(),
  backoff: z
    .union([int(0), z.strictObject({ type: z.enum(['fixed', 'exponential']), delay: int(0).optional() })])
    .optional(),
  timeoutMs: int(1).optional(),
  misfire: z.enum(['once', 'all', 'skip']).optional(),
  misfireGraceMs: int(0).optional(),
  catchUpWindowMs: int(0).optional(),
  maxCatchUp: int(0).optional(),
  startAt: instant.optional(),
  endAt: instant.optional(),
  maxRuns: int(1).optional(),
  exclusionGroup: z.string().min(1).optional(),
  exclusionWaitMs: int(0).optional(),
  jobOptions: z.record(z.string(), z.unknown()).optional(),
};

const TRIGGER_REQUIRED =
  'required: a built-in trigger, e.g. { "type": "cron", "expression": "0 9 * * *" }, { "type": "interval", "seconds": 60 } or { "type": "date", "at": "2030-01-01T09:00:00Z" }';

/** `POST /api/schedules`: a queue target (job name) on a built-in trigger. */
export const createSchema = z.strictObject({
  name: z.string().min(1, 'must be a non-empty job name').max(512),
  trigger: z.unknown().nonoptional({ error: TRIGGER_REQUIRED }),
  ...optionsShape,
});

/** `PATCH /api/schedules/:id`: any of the same fields but `id`. */
export const updateSchema = z.strictObject({
  name: z.string().min(1).max(512).optional(),
  trigger: z.unknown().optional(),
  ...optionsShape,
  id: z.undefined({ error: 'cannot be changed (create a new schedule instead)' }).optional(),
});

export type CreateInput = z.infer<typeof createSchema>;
export type UpdateInput = z.infer<typeof updateSchema>;

/** Parse with a zod schema; the first issue becomes an `InputError` naming its path. */
export function parseInput<T>(schema: z.ZodType<T>, body: unknown, root = ''): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const path = keys
    .map((k) => (typeof k === 'number' ? `[${k}]` : String(k)))
    .join('.')
    .replaceAll('.[', '[');
  const field = root && path ? `${root}.${path}` : root || path || '(body)';
  const reason = issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message;
  throw new InputError(field, reason);
}

/** An instant from epoch ms or an ISO date-time (read in `timezone` when it has no offset). */
export function toInstant(field: string, value: number | string, timezone = 'UTC'): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new InputError(field, `must be a finite epoch-ms number, got ${value}`);
    return value;
  }
  const dt = DateTime.fromISO(value, { zone: timezone });
  if (!dt.isValid) {
    throw new InputError(
      field,
      `cannot read "${value}" as an ISO date-time in ${timezone} (${dt.invalidExplanation ?? dt.invalidReason})`,
    );
  }
  return dt.toMillis();
}

/**
 * A built-in trigger from the API's JSON. Same shape as the triggers' own JSON, plus the date
 * trigger's `at` may be an ISO string read in its `timezone` (the form's datetime-local input).
 */
export function toTrigger(json: unknown, field = 'trigger'): SerializableTrigger {
  let value = json;
  if (typeof json === 'object' && json !== null && (json as { type?: unknown }).type === 'date') {
    const { at, timezone, ...rest } = json as { at?: unknown; timezone?: unknown };
    if (timezone !== undefined && typeof timezone !== 'string') {
      throw new InputError(`${field}.timezone`, 'must be an IANA time zone name');
    }
    if (typeof at === 'string' || typeof at === 'number') {
      if (timezone !== undefined && !DateTime.now().setZone(timezone).isValid) {
        throw new InputError(`${field}.timezone`, `unknown time zone "${timezone}"`);
      }
      value = { ...rest, at: toInstant(`${field}.at`, at, timezone ?? 'UTC') };
    } else value = { ...rest, at };
  }
  try {
    return triggerFromJSON(value);
  } catch (err) {
    if (err instanceof TriggerError) {
      throw new InputError(err.field === '(root)' ? field : `${field}.${err.field}`, err.reason);
    }
    throw err;
  }
}

/** The `ScheduleOptions` a stored definition was made with (for updates: old fields plus the patch). */
export function optionsOf(def: ScheduleDefinition): ScheduleOptions {
  return {
    id: def.id,
    name: def.name,
    queue: def.queue,
    args: def.args,
    ...(def.data !== undefined && { data: def.data }),
    maxInstances: def.run.maxInstances,
    coalesce: def.run.coalesce,
    ...(def.run.exclusionGroup !== undefined && { exclusionGroup: def.run.exclusionGroup }),
    ...(def.run.exclusionWaitMs !== undefined && { exclusionWaitMs: def.run.exclusionWaitMs }),
    ...(def.run.timeoutMs !== undefined && { timeoutMs: def.run.timeoutMs }),
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
  };
}

/** Input fields to `ScheduleOptions` (instants converted; undefined fields left out). */
export function inputOptions(input: Record<string, unknown>): ScheduleOptions {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined || k === 'trigger') continue;
    out[k] = k === 'startAt' || k === 'endAt' ? toInstant(k, v as number | string) : v;
  }
  return out as ScheduleOptions;
}

export type { TriggerJSON };
