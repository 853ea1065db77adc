import { DateTime } from 'luxon';
import { z } from 'zod';
import { ON_EXCLUDED } from '../../triggers/calendar-trigger.js';
import { instantProblem } from '../../triggers/instant-bounds.js';
import type { TriggerJSON } from '../../triggers/trigger.js';
import { expectOption, storedExpectations, storedExpectationsOf } from './expectations.js';
import { groupField } from './group-options.js';
import { jobOptionsSchema, type PassthroughJobOptions } from './job-options-schema.js';
import { type Labels, labelsProblem, sortedLabels } from './labels.js';
import { MISFIRE_POLICIES, type MisfirePolicy } from './misfire-policy.js';
import {
  OVERLAP_POLICIES,
  type OverlapPolicy,
  overlapProblem,
  resolveOverlap,
  SLOT_MODES,
} from './overlap-policy.js';
import { DEFAULT_RUN_OPTIONS, JOB_PAYLOADS, resolveRunOptions } from './run-options.js';
import { showValue as show } from './show-value.js';
import { spreadField } from './spread.js';

// A schedule's rules, written once: the manager's options (`schedule()`, `every()`, `cron()`), the
// JSON API's bodies, the dashboard form and the CLI's flags are checked with `scheduleFields`, and a
// stored definition is read back with `definitionSchema`, built from the same field rules. Errors
// are `{ field, reason }` with the path of the bad value (`jobOptions.priority`, `run.maxInstances`).

export { MISFIRE_POLICIES, type MisfirePolicy } from './misfire-policy.js';
export { OVERLAP_POLICIES, type OverlapPolicy } from './overlap-policy.js';

/** BullMQ's built-in backoff strategies (bullbeat's workers define no custom one). */
export const BACKOFF_TYPES = ['fixed', 'exponential'] as const;

/** The defaults of a schedule's options, applied once, when a definition is made from options. */
export const SCHEDULE_DEFAULTS = {
  maxInstances: DEFAULT_RUN_OPTIONS.maxInstances,
  overlap: DEFAULT_RUN_OPTIONS.overlap,
  attempts: 1,
  misfire: 'once' as MisfirePolicy,
  misfireGraceMs: 60_000,
  maxCatchUp: 1000,
} as const;

/**
 * Where a schedule comes from. `code`: registered by the jobs module before `start()`; upserted at
 * every start, paused (orphaned) when a scheduler starts without it. `runtime`: created while running
 * (or targeting a queue with no local function); persists until removed.
 */
export type ScheduleSource = 'code' | 'runtime';

/** Stands in for a custom trigger, which cannot be serialized: only code that defines it can fire it. */
export interface CustomTriggerJSON {
  type: 'custom';
  /** The trigger's class name, for display. */
  kind: string;
}

// ── one rule per field ─────────────────────────────────────────────────────────────────────

const int = (min: number) => {
  const error = (i: { input: unknown }) => `must be an integer >= ${min}, got ${show(i.input)}`;
  return z.number({ error }).int({ error }).min(min, { error });
};
const bool = z.boolean({ error: (i) => `must be a boolean, got ${show(i.input)}` });
const text = (max: number) => {
  const error = (i: { input: unknown }) =>
    i.input === undefined
      ? 'required: a non-empty string'
      : `must be a non-empty string of at most ${max} characters, got ${show(i.input)}`;
  return z.string({ error }).min(1, { error }).max(max, { error });
};
const queue = z
  .string({ error: (i) => `must be a non-empty string without ":", got ${show(i.input)}` })
  .min(1, { error: (i) => `must be a non-empty string without ":", got ${show(i.input)}` })
  .max(256, { error: 'must be at most 256 characters long' })
  .refine((q) => !q.includes(':'), {
    error: (i) => `must be a non-empty string without ":", got ${show(i.input)}`,
  });
const misfire = z.enum(MISFIRE_POLICIES, {
  error: (i) => `must be one of ${MISFIRE_POLICIES.map((p) => `"${p}"`).join(', ')}, got ${show(i.input)}`,
});
const overlap = z.enum(OVERLAP_POLICIES, {
  error: (i) => `must be one of ${OVERLAP_POLICIES.map((p) => `"${p}"`).join(', ')}, got ${show(i.input)}`,
});
const slotRule = z.object(
  {
    mode: z.enum(SLOT_MODES, {
      error: (i) => `must be one of ${SLOT_MODES.map((p) => `"${p}"`).join(', ')}, got ${show(i.input)}`,
    }),
    cap: int(0),
  },
  { error: (i) => `must be an object { mode, cap }, got ${show(i.input)}` },
);
/** Labels (labels.ts): a bad key or value names itself (`labels.my key: key "my key": must be ...`). */
const labels = z
  .unknown()
  .superRefine((v, ctx) => {
    const problem = labelsProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.reason });
  })
  .transform((v) => sortedLabels(v as Labels));
const args = z.array(z.unknown(), { error: (i) => `must be an array, got ${show(i.input)}` });
const payload = z.enum(JOB_PAYLOADS, {
  error: (i) => `must be one of ${JOB_PAYLOADS.map((p) => `"${p}"`).join(', ')}, got ${show(i.input)}`,
});
const backoff = z.union(
  [
    int(0),
    z.strictObject(
      {
        type: z.enum(BACKOFF_TYPES, {
          error: (i) => `must be "fixed" or "exponential", got ${show(i.input)}`,
        }),
        delay: int(0).optional(),
        jitter: z
          .number({ error: (i) => `must be a number from 0 to 1, got ${show(i.input)}` })
          .min(0, { error: (i) => `must be a number from 0 to 1, got ${show(i.input)}` })
          .max(1, { error: (i) => `must be a number from 0 to 1, got ${show(i.input)}` })
          .optional(),
      },
      { error: (i) => (i.code === 'unrecognized_keys' ? 'unknown backoff option' : undefined) },
    ),
  ],
  { error: (i) => `must be a delay in ms or { type, delay?, jitter? }, got ${show(i.input)}` },
);
const functions = z.array(
  z.custom<(...a: never[]) => unknown>((f) => typeof f === 'function'),
  { error: 'must be an array of middleware functions' },
);

/**
 * An instant given as epoch ms, a `Date`, or an ISO 8601 date-time (read in UTC when it has no
 * offset), bounded as triggers bound theirs and made whole: `startAt` rounded up, `endAt` down, so
 * neither widens the schedule.
 */
const instant = (whole: (ms: number) => number) =>
  z
    .union([z.number(), z.date(), z.string()], {
      error: (i) => `must be epoch ms, an ISO date-time or a valid Date, got ${show(i.input)}`,
    })
    .transform((v, ctx) => {
      let t = typeof v === 'number' ? v : v instanceof Date ? v.getTime() : Number.NaN;
      if (typeof v === 'string') {
        const dt = DateTime.fromISO(v, { zone: 'UTC' });
        if (!dt.isValid) {
          ctx.addIssue({
            code: 'custom',
            message: `cannot read ${show(v)} as an ISO date-time in UTC (${dt.invalidExplanation ?? dt.invalidReason})`,
          });
          return z.NEVER;
        }
        t = dt.toMillis();
      }
      const problem = Number.isFinite(t)
        ? instantProblem(t)
        : `must be epoch ms, an ISO date-time or a valid Date, got ${show(v)}`;
      if (problem !== undefined) {
        ctx.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }
      return whole(t);
    });
/** A stored instant: whole epoch ms, in bounds. */
const wholeMs = (i: { input: unknown }) => `must be whole epoch ms, got ${show(i.input)}`;
const storedInstant = z
  .number({ error: wholeMs })
  .int({ error: wholeMs })
  .refine((t) => instantProblem(t) === undefined, {
    error: (i) => instantProblem(i.input as number) ?? 'out of range',
  });

/** `except`: dates, date ranges, cron expressions (strings) or triggers (objects), checked in full by `ExceptTrigger`. */
const exceptList = z
  .array(
    z.custom<string | object>(
      (v) =>
        (typeof v === 'string' && v.trim() !== '') ||
        (typeof v === 'object' && v !== null && !Array.isArray(v)),
      {
        error: (i) =>
          `must be a date (YYYY-MM-DD), a date range (YYYY-MM-DD..YYYY-MM-DD), a cron expression or a trigger, got ${show(i.input)}`,
      },
    ),
    {
      error: (i) =>
        `must be an array of dates, date ranges, cron expressions or triggers, got ${show(i.input)}`,
    },
  )
  .max(1000, { error: 'must hold at most 1000 entries' });

/** The options a schedule is defined with, each one checked; no defaults here (see `SCHEDULE_DEFAULTS`). */
export const scheduleFields = {
  id: text(512).optional(),
  name: text(512).optional(),
  queue: queue.optional(),
  args: args.optional(),
  data: z.unknown().optional(),
  payload: payload.optional(),
  maxInstances: int(0).optional(),
  /** Deprecated: `overlap` says it (`true` is `'skip'` one at a time); resolved once, at definition. */
  coalesce: bool.optional(),
  attempts: int(1).optional(),
  backoff: backoff.optional(),
  timeoutMs: int(1).optional(),
  misfire: misfire.optional(),
  misfireGraceMs: int(0).optional(),
  catchUpWindowMs: int(0).optional(),
  maxCatchUp: int(0).optional(),
  startAt: instant(Math.ceil).optional(),
  endAt: instant(Math.floor).optional(),
  maxRuns: int(1).optional(),
  immediately: bool.optional(),
  exclusionGroup: text(512).optional(),
  exclusionWaitMs: int(0).optional(),
  jobOptions: jobOptionsSchema.optional(),
  overlap: overlap.optional(),
  pauseOnFailure: int(1).optional(),
  /** Read into an `ExceptTrigger` wrapping the trigger (each entry checked there); stored in the trigger. */
  except: exceptList.optional(),
  /** Read into whole ms (`spreadMs`); checked against the trigger's shortest gap where the trigger is known. */
  spread: spreadField.optional(),
  /** At most `max` runs at once across the schedules naming `key` (stored in `run.group`). */
  group: groupField.optional(),
  labels: labels.optional(),
  /** What each occurrence must meet (`expectations.ts`); stored in ms (`storedExpectationsOf`). */
  expect: expectOption.optional(),
  /** Read into a `CalendarTrigger` wrapping the trigger (checked there); stored in the trigger. */
  calendar: text(128).optional(),
  onExcluded: z
    .enum(ON_EXCLUDED, {
      error: (i) => `must be one of ${ON_EXCLUDED.map((p) => `"${p}"`).join(', ')}, got ${show(i.input)}`,
    })
    .optional(),
};

/** Checks shared by every door: the window is not inverted; args and data survive JSON. */
function crossChecks(
  o: {
    startAt?: number;
    endAt?: number;
    args?: unknown;
    data?: unknown;
    overlap?: OverlapPolicy;
    maxInstances?: number;
    coalesce?: boolean;
  },
  ctx: z.RefinementCtx,
) {
  const contradiction = overlapProblem(o);
  if (contradiction) {
    ctx.addIssue({ code: 'custom', path: [contradiction.field], message: contradiction.reason });
  }
  if (o.startAt !== undefined && o.endAt !== undefined && o.endAt < o.startAt) {
    ctx.addIssue({ code: 'custom', path: ['endAt'], message: 'must not be before startAt' });
  }
  for (const field of ['args', 'data'] as const) {
    const problem = jsonProblem(o[field]);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: problem });
  }
}

/** How deep `args` and `data` may nest (arrays and objects): far past any payload, short of a stack. */
export const MAX_JSON_DEPTH = 100;

/** Why a value cannot be stored as JSON (nested too deep, or not serializable), or undefined. */
function jsonProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  // depth first, without recursion: a value nested thousands deep must not overflow the stack here
  const stack: [unknown, number][] = [[value, 1]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_JSON_DEPTH) return `is nested more than ${MAX_JSON_DEPTH} levels deep`;
    if (seen.has(v)) continue; // a cycle: JSON.stringify below names it
    seen.add(v);
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  try {
    JSON.stringify(value);
  } catch (err) {
    return `must be JSON-serializable (${(err as Error).message})`;
  }
  return undefined;
}

/** Unknown keys name themselves: `maxInstance: unknown option`. */
export const unknownKey = (word: string) => (i: { code?: string }) =>
  i.code === 'unrecognized_keys' ? `unknown ${word}` : undefined;

/** The options of `schedule()` (and of `every()`/`cron()` once their trigger options are taken out). */
export const scheduleOptionsSchema = z
  .strictObject(
    {
      ...scheduleFields,
      middleware: functions.optional(),
      timezone: z
        .never({
          error:
            'only a cron schedule has a time zone: give it to cron(expression, { timezone }) or to new CronTrigger(expression, { timezone }); an interval or a date has none',
        })
        .optional(),
    },
    { error: unknownKey('option') },
  )
  .superRefine(crossChecks);
export type CheckedScheduleOptions = z.output<typeof scheduleOptionsSchema>;

const triggerRef = z.custom<TriggerJSON | CustomTriggerJSON>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string',
  { error: (i) => `must be a trigger object ({ type: ... }), got ${show(i.input)}` },
);

/**
 * A schedule as stored in Redis (the `schedules` hash, JSON): every option resolved, nothing
 * process-local (middleware and functions stay in the code that defines them). Read with the same
 * field rules the options are checked with; the trigger is only checked for a `type` here (the
 * triggers' own schema reads the rest when it is built). Stored job options are only checked to be
 * an object: BullMQ judges them per occurrence, and a job it refuses is isolated (add-bulk-isolated).
 */
export const definitionSchema = z.object({
  id: text(512),
  name: text(512),
  queue,
  source: z.enum(['code', 'runtime'], { error: (i) => `must be "code" or "runtime", got ${show(i.input)}` }),
  trigger: triggerRef,
  args,
  data: z.unknown().optional(),
  /** `plain`: the job's data is `data` alone (stored only when plain; see `JobPayload`). */
  payload: z
    .literal('plain', { error: (i) => `must be "plain" when stored, got ${show(i.input)}` })
    .optional(),
  /**
   * The run options with their overlap rule (`slot`). A row of an earlier release has none (it has
   * `coalesce`, maybe `overlap`): its rule is derived here, once, as that release read it
   * (`resolveRunOptions`), so every reader gets a `slot`.
   */
  run: z
    .object(
      {
        maxInstances: int(0),
        coalesce: bool.optional(),
        exclusionGroup: text(512).optional(),
        exclusionWaitMs: int(0).optional(),
        timeoutMs: int(1).optional(),
        overlap: overlap.optional(),
        slot: slotRule.optional(),
        pauseOnFailure: int(1).optional(),
        group: groupField.optional(),
      },
      { error: (i) => `must be an object { maxInstances, overlap, slot, ... }, got ${show(i.input)}` },
    )
    .transform((run) => resolveRunOptions(run)),
  attempts: int(1),
  backoff: backoff.optional(),
  jobOptions: z
    .custom<PassthroughJobOptions>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
      error: (i) => `must be an object of BullMQ job options, got ${show(i.input)}`,
    })
    .optional(),
  misfire,
  misfireGraceMs: int(0),
  catchUpWindowMs: int(0).optional(),
  maxCatchUp: int(0),
  startAt: storedInstant.optional(),
  endAt: storedInstant.optional(),
  maxRuns: int(1).optional(),
  /** Fire once when the schedule is created, then follow the trigger (stored only when true). */
  immediately: z.literal(true, { error: (i) => `must be true when stored, got ${show(i.input)}` }).optional(),
  /** Deterministic spread window (ms): each occurrence fires at its time plus `spreadOffsetMs(id, spreadMs)`. */
  spreadMs: int(1).optional(),
  /** Stored only when it has any; indexed by the scripts that write it (includes/labels.lua). */
  labels: labels.optional(),
  /** What each occurrence must meet, durations in ms (see `expectations.ts`). */
  expect: storedExpectations.optional(),
});
export type ScheduleDefinition = z.output<typeof definitionSchema>;

/** What a definition is made of besides the checked options. */
export interface DefinitionParts {
  id: string;
  name: string;
  queue: string;
  source: ScheduleSource;
  trigger: TriggerJSON | CustomTriggerJSON;
}

/** A definition from checked options: the one place `SCHEDULE_DEFAULTS` are applied. */
export function definitionFrom(parts: DefinitionParts, o: CheckedScheduleOptions): ScheduleDefinition {
  const d = SCHEDULE_DEFAULTS;
  return {
    ...parts,
    args: o.args ?? [],
    run: {
      ...resolveOverlap(o),
      ...(o.exclusionGroup !== undefined && { exclusionGroup: o.exclusionGroup }),
      ...(o.exclusionWaitMs !== undefined && { exclusionWaitMs: o.exclusionWaitMs }),
      ...(o.timeoutMs !== undefined && { timeoutMs: o.timeoutMs }),
      ...(o.pauseOnFailure !== undefined && { pauseOnFailure: o.pauseOnFailure }),
      ...(o.group !== undefined && { group: o.group }),
    },
    attempts: o.attempts ?? d.attempts,
    misfire: o.misfire ?? d.misfire,
    misfireGraceMs: o.misfireGraceMs ?? d.misfireGraceMs,
    maxCatchUp: o.maxCatchUp ?? d.maxCatchUp,
    ...(o.data !== undefined && { data: o.data }),
    ...(o.payload === 'plain' && { payload: 'plain' as const }),
    ...(o.backoff !== undefined && { backoff: o.backoff }),
    ...(o.jobOptions !== undefined && { jobOptions: o.jobOptions as PassthroughJobOptions }),
    ...(o.catchUpWindowMs !== undefined && { catchUpWindowMs: o.catchUpWindowMs }),
    ...(o.startAt !== undefined && { startAt: o.startAt }),
    ...(o.endAt !== undefined && { endAt: o.endAt }),
    ...(o.maxRuns !== undefined && { maxRuns: o.maxRuns }),
    ...(o.immediately === true && { immediately: true as const }),
    ...(o.spread !== undefined && { spreadMs: o.spread }),
    ...(o.labels !== undefined && Object.keys(o.labels).length > 0 && { labels: o.labels }),
    ...(o.expect !== undefined && { expect: storedExpectationsOf(o.expect) }),
  };
}

/** The first problem of a failed parse: `{ field: 'jobOptions.priority', reason }` (`(root)` for the value). */
export function firstProblem(error: z.ZodError): { field: string; reason: string } {
  const issue = error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  let field = '';
  for (const k of keys)
    field += typeof k === 'number' ? `[${k}]` : field === '' ? String(k) : `.${String(k)}`;
  return { field: field || '(root)', reason: issue.message };
}
