import { z } from 'zod';
import { CronSyntaxError, InvalidTimezoneError, TriggerError } from '../errors/index.js';
import { type CalendarSource, CalendarTrigger, NO_CALENDARS } from './calendar-trigger.js';
import { CompoundTrigger } from './compound-trigger.js';
import { CronTrigger } from './cron-trigger.js';
import { DateTrigger } from './date-trigger.js';
import { ExceptTrigger } from './except-trigger.js';
import { IntervalTrigger } from './interval-trigger.js';
import { show } from './show-value.js';
import type { SerializableTrigger } from './trigger.js';

/** Compounds nested deeper than this are rejected (a guard against hostile input, not a real limit). */
const MAX_DEPTH = 32;

const TYPES = ['interval', 'cron', 'date', 'compound', 'except', 'calendar'] as const;

const number = z.number({ error: (issue) => `must be a finite number, got ${show(issue.input)}` });
const string = z.string({ error: (issue) => `must be a string, got ${show(issue.input)}` });
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, {
    error: (issue) => `must be one of ${values.map((v) => `"${v}"`).join(', ')}, got ${show(issue.input)}`,
  });

const head = z.looseObject({ type: string });

const intervalSchema = z.strictObject({
  type: z.literal('interval'),
  seconds: number,
  jitter: number.optional(),
  anchor: number.optional(),
});

const cronSchema = z.strictObject({
  type: z.literal('cron'),
  expression: string,
  timezone: string.optional(),
  jitter: number.optional(),
  dayMatch: oneOf(['or', 'and']).optional(),
  dst: z
    .strictObject(
      {
        gap: oneOf(['shift', 'skip']).optional(),
        repeated: oneOf(['first', 'both']).optional(),
        /** The earlier name of `repeated` (stored triggers of earlier releases): read as it. */
        overlap: oneOf(['first', 'both']).optional(),
      },
      { error: (issue) => `must be an object, got ${show(issue.input)}` },
    )
    .optional(),
});

const dateSchema = z.strictObject({ type: z.literal('date'), at: number });

const compoundSchema = z.strictObject({
  type: z.literal('compound'),
  logic: oneOf(['and', 'or']),
  triggers: z
    .array(z.unknown(), { error: (issue) => `must be an array of triggers, got ${show(issue.input)}` })
    .min(1, { error: 'must hold at least one trigger, got an empty list' }),
});

const exceptSchema = z.strictObject({
  type: z.literal('except'),
  trigger: z.unknown().nonoptional({ error: 'required: the trigger to take exclusions from' }),
  except: z.array(z.unknown(), {
    error: (issue) =>
      `must be an array of dates, date ranges, cron expressions or triggers, got ${show(issue.input)}`,
  }),
  timezone: string.optional(),
});

const calendarSchema = z.strictObject({
  type: z.literal('calendar'),
  calendar: string,
  trigger: z.unknown().nonoptional({ error: 'required: the trigger the calendar governs' }),
  onExcluded: oneOf(['skip', 'next', 'previous']).optional(),
  timezone: string.optional(),
});

type Path = readonly (string | number)[];

/** `triggers[1].seconds`; `(root)` for the value itself. */
function pathText(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    text += typeof key === 'number' ? `[${key}]` : text === '' ? String(key) : `.${String(key)}`;
  }
  return text === '' ? '(root)' : text;
}

function fail(path: readonly PropertyKey[], reason: string, cause?: unknown): never {
  throw new TriggerError(
    'triggerFromJSON',
    pathText(path),
    reason,
    cause === undefined ? undefined : { cause },
  );
}

function parse<T>(schema: z.ZodType<T>, json: unknown, path: Path): T {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const allowed = 'shape' in schema ? Object.keys((schema as unknown as z.ZodObject).shape).join(', ') : '';
    fail([...path, ...issue.path, issue.keys[0]!], `unknown field (expected ${allowed})`, result.error);
  }
  fail([...path, ...issue.path], issue.message, result.error);
}

/** Run a constructor, turning its errors into a `TriggerError` that names the path of the bad field. */
function build<T>(path: Path, make: () => T): T {
  try {
    return make();
  } catch (err) {
    if (err instanceof TriggerError) fail([...path, err.field], err.reason, err);
    if (err instanceof CronSyntaxError) fail([...path, 'expression'], err.message, err);
    if (err instanceof InvalidTimezoneError) fail([...path, 'timezone'], err.message, err);
    throw err;
  }
}

function fromJSON(json: unknown, path: Path, depth: number, calendars: CalendarSource): SerializableTrigger {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    fail(
      path,
      `must be a trigger object ({ type: ... }), got ${Array.isArray(json) ? 'an array' : show(json)}`,
    );
  }
  const { type } = parse(head, json, path);
  switch (type) {
    case 'interval': {
      const j = parse(intervalSchema, json, path);
      return build(
        path,
        () =>
          new IntervalTrigger(j.seconds, {
            ...(j.jitter !== undefined && { jitter: j.jitter }),
            ...(j.anchor !== undefined && { anchor: j.anchor }),
          }),
      );
    }
    case 'cron': {
      const j = parse(cronSchema, json, path);
      const { type: _, expression, ...options } = j;
      return build(path, () => new CronTrigger(expression, options));
    }
    case 'date': {
      const j = parse(dateSchema, json, path);
      return build(path, () => new DateTrigger(j.at));
    }
    case 'compound': {
      const j = parse(compoundSchema, json, path);
      if (depth >= MAX_DEPTH) fail(path, `compounds nested deeper than ${MAX_DEPTH} levels`);
      const children = j.triggers.map((child, i) =>
        fromJSON(child, [...path, 'triggers', i], depth + 1, calendars),
      );
      return build(path, () => new CompoundTrigger(children, j.logic));
    }
    case 'except': {
      const j = parse(exceptSchema, json, path);
      if (depth >= MAX_DEPTH) fail(path, `triggers nested deeper than ${MAX_DEPTH} levels`);
      const inner = fromJSON(j.trigger, [...path, 'trigger'], depth + 1, calendars);
      const except = j.except.map((e, i) =>
        typeof e === 'string' ? e : fromJSON(e, [...path, 'except', i], depth + 1, calendars),
      );
      return build(
        path,
        () => new ExceptTrigger(inner, except, j.timezone === undefined ? {} : { timezone: j.timezone }),
      );
    }
    case 'calendar': {
      const j = parse(calendarSchema, json, path);
      if (depth > 0)
        fail([...path, 'type'], 'a calendar trigger governs a whole schedule: it cannot be nested');
      const inner = fromJSON(j.trigger, [...path, 'trigger'], depth + 1, calendars);
      const options = {
        ...(j.onExcluded !== undefined && { onExcluded: j.onExcluded }),
        ...(j.timezone !== undefined && { timezone: j.timezone }),
      };
      return build(path, () => new CalendarTrigger(inner, j.calendar, options, calendars));
    }
    default:
      return fail(
        [...path, 'type'],
        `unknown trigger type ${show(type)} (expected ${TYPES.map((t) => `"${t}"`).join(', ')})`,
      );
  }
}

/**
 * Read back a trigger written by a built-in trigger's `toJSON()` (or `JSON.parse` of it), validating
 * everything it reads. Throws a `TriggerError` whose `field` is the path of the bad value
 * (`triggers[1].seconds`, `(root)` for the value itself) and whose `reason` says what is wrong;
 * a bad cron expression or time zone is reported the same way, with the engine's error as `cause`.
 *
 * A calendar trigger reads its calendar from `options.calendars` (without one it can be read and
 * shown, and its `nextFire` throws naming the calendar).
 *
 * `toJSON()` omits options at their defaults, so `toJSON(triggerFromJSON(j))` equals `j` for every
 * `j` that `toJSON()` produces; an input that spells out a default (`jitter: 0`) comes back without it.
 */
export function triggerFromJSON(
  json: unknown,
  options: { calendars?: CalendarSource } = {},
): SerializableTrigger {
  return fromJSON(json, [], 0, options.calendars ?? NO_CALENDARS);
}
