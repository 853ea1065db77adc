import { DateTime } from 'luxon';
import { z } from 'zod';
import { TriggerError } from '../src/errors/index.js';
import type { ScheduleOptions } from '../src/scheduler/index.js';
import { firstProblem, scheduleFields, unknownKey } from '../src/store/index.js';
import type { SerializableTrigger, TriggerJSON } from '../src/triggers/index.js';
import { triggerFromJSON } from '../src/triggers/index.js';

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

/**
 * The fields a created (or updated) schedule may set: the store's one rule per field
 * (`scheduleFields`), the same the library and the CLI check with; instants may be ISO strings.
 */
const { name: nameField, ...optionsShape } = scheduleFields;

const TRIGGER_REQUIRED =
  'required: a built-in trigger, e.g. { "type": "cron", "expression": "0 9 * * *" }, { "type": "interval", "seconds": 60 } or { "type": "date", "at": "2030-01-01T09:00:00Z" }';

const ALLOW_PAST = z
  .boolean({ error: 'must be true or false' })
  .optional()
  .describe(
    'a date trigger in the past runs once, now (default false: 400, as the CLI without --allow-past)',
  );

/**
 * `POST /api/schedules`: a queue target (job name) on a built-in trigger. An id already there is
 * replaced only with `replace` (as `schedule:add --replace`), never when it is defined in code.
 */
export const createSchema = z.strictObject(
  {
    name: nameField.unwrap(),
    trigger: z.unknown().nonoptional({ error: TRIGGER_REQUIRED }),
    ...optionsShape,
    replace: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe('replace a runtime schedule with this id (default false: 409 when the id exists)'),
    allowPast: ALLOW_PAST,
  },
  { error: unknownKey('field') },
);

/** `PATCH /api/schedules/:id`: any of the same fields but `id`. */
export const updateSchema = z.strictObject(
  {
    name: nameField,
    trigger: z.unknown().optional(),
    ...optionsShape,
    id: z.undefined({ error: 'cannot be changed (create a new schedule instead)' }).optional(),
    allowPast: ALLOW_PAST,
  },
  { error: unknownKey('field') },
);

export type CreateInput = z.infer<typeof createSchema>;
export type UpdateInput = z.infer<typeof updateSchema>;

/** Parse with a zod schema; the first issue becomes an `InputError` naming its path. */
export function parseInput<T>(schema: z.ZodType<T>, body: unknown, root = ''): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const { field: path, reason } = firstProblem(result.error);
  const at = path === '(root)' ? '' : path;
  throw new InputError(root && at ? `${root}.${at}` : root || at || '(body)', reason);
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

/** `3 days`, `5 hours`, `12 minutes`, `40 seconds`: how long ago, in the largest whole unit. */
function howLong(ms: number): string {
  for (const [unit, size] of [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ] as const) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${unit}${n === 1 ? '' : 's'}`;
  }
  const s = Math.max(1, Math.round(ms / 1000));
  return `${s} second${s === 1 ? '' : 's'}`;
}

/**
 * A date trigger before `now` would run at once as a late occurrence: the request must say
 * `allowPast` (the rule of `schedule:add --allow-past`), so a typo in a year is not a surprise.
 * `allowPast` applies to a date trigger only.
 */
export function checkPast(
  trigger: SerializableTrigger | undefined,
  allowPast: boolean | undefined,
  now: number,
) {
  const json = trigger?.toJSON();
  if (json?.type !== 'date') {
    if (allowPast !== undefined) throw new InputError('allowPast', 'only applies to a date trigger');
    return;
  }
  if (json.at < now && allowPast !== true) {
    throw new InputError(
      'trigger.at',
      `${new Date(json.at).toISOString()} is in the past (by ${howLong(now - json.at)}): send "allowPast": true to run it once, now`,
    );
  }
}

/** Parsed input fields to `ScheduleOptions` (instants already epoch ms; undefined fields left out). */
export function inputOptions(input: Record<string, unknown>): ScheduleOptions {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined || k === 'trigger') continue;
    out[k] = v;
  }
  return out as ScheduleOptions;
}

export type { TriggerJSON };

// -- schedule controls: pause with a note, resume with a policy --
// Shapes only (unknown fields refused); the values are judged by the library (`pause`, `resume`),
// so the API, the CLI and the library refuse a note or a policy with the same words.

/**
 * `POST /api/schedules/:id/pause`: an optional note (at most 500 characters) and whom the caller says
 * it pauses for. The actor is always who authenticated; `by` is the older name of `onBehalfOf`.
 */
export const pauseSchema = z.strictObject(
  {
    note: z.string({ error: 'must be a string (at most 500 characters)' }).optional(),
    onBehalfOf: z
      .string({ error: 'must be a string' })
      .optional()
      .describe('whom the caller acts for: recorded beside the actor, never as it'),
    by: z.string({ error: 'must be a string' }).optional().describe('the older name of onBehalfOf'),
  },
  { error: unknownKey('field') },
);

/** `POST /api/schedules/:id/resume`: what becomes of the occurrences due while paused. */
export const resumeSchema = z.strictObject(
  {
    policy: z
      .string({ error: 'must be "skip", "once" or "all"' })
      .optional()
      .describe('skip (default): none runs; once: one run for all; all: each, up to maxCatchUp'),
    maxCatchUp: z
      .number({ error: 'must be an integer >= 0' })
      .optional()
      .describe('under policy all, refuse when more were missed (default 100)'),
  },
  { error: unknownKey('field') },
);
