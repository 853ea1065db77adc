import { DateTime } from 'luxon';
import { z } from 'zod';
import { ScheduleOptionsError } from '../../errors/index.js';
import {
  AUDIT_SOURCES,
  type AuditActor,
  firstProblem,
  OVERLAP_POLICIES,
  type OverlapPolicy,
  type PassthroughJobOptions,
  showValue as show,
  unknownKey,
} from '../../store/index.js';
import { instantProblem } from '../../triggers/instant-bounds.js';
import { actorOf, CHANGE_BY_MAX, type ChangeOptions } from './change-options.js';
import { type RunOverrides, resolveRunOverrides } from './trigger-now-options.js';

/**
 * The overlap policies a backfill takes: a schedule's own (`OVERLAP_POLICIES`).
 * @deprecated Use `OVERLAP_POLICIES`: a backfill's `overlap` takes the schedule's vocabulary.
 */
export const BACKFILL_OVERLAP = OVERLAP_POLICIES;
/**
 * A backfill's overlap policy: a schedule's `OverlapPolicy`.
 * @deprecated Use `OverlapPolicy`: a backfill's `overlap` takes the schedule's vocabulary.
 */
export type BackfillOverlap = OverlapPolicy;

/** Defaults of `backfill()`. */
export const BACKFILL_DEFAULTS = {
  ratePerSecond: 100,
  maxOccurrences: 10_000,
} as const;

/** Which occurrences of a range a backfill runs (see `BackfillOptions.only`). */
export const BACKFILL_ONLY = ['failed', 'missed', 'not-run'] as const;
export type BackfillOnly = (typeof BACKFILL_ONLY)[number];

/** `scheduler.backfill(id, options)`. */
export interface BackfillOptions extends ChangeOptions {
  /** The start of the range, inclusive: epoch ms, a `Date` or an ISO 8601 date-time (UTC without an offset). Required. */
  from: number | Date | string;
  /** The end of the range, exclusive (same forms). Required; after `from`. */
  to: number | Date | string;
  /**
   * How the backfilled runs treat a run of the schedule still going, in the schedule's vocabulary
   * (`OverlapPolicy`), in place of the schedule's own policy for these runs (Temporal's backfill
   * request): `bufferAll` runs them one after another in fire-time order, each waiting for any run
   * still going; `allowAll` lifts any cap; `skip`, `bufferOne` and `cancelOther` mean what they mean on
   * a schedule, one run at a time (enqueued together, the backfilled runs then skip or supersede each
   * other: what a backfill wants is mostly `bufferAll`).
   * @defaultValue 'bufferAll'
   */
  overlap?: OverlapPolicy;
  /**
   * Run only these occurrences of the range (the others are listed `not-selected`): `failed`, those
   * whose run failed for good (each re-run once: the ledger takes it); `missed`, those recorded missed or
   * skipped; `not-run`, every occurrence nothing ran (the default's choice: missed, skipped, and those
   * before the schedule's creation or inside a pause).
   * @defaultValue `not-run`'s choice
   */
  only?: BackfillOnly;
  /**
   * List the occurrences and what would become of each; enqueue nothing.
   * @defaultValue false
   */
  dryRun?: boolean;
  /**
   * At most this many occurrences are enqueued per second (in batches of a tenth of it).
   * @defaultValue 100
   */
  ratePerSecond?: number;
  /**
   * A range holding more occurrences than this is refused (nothing enqueued), naming `to`.
   * @defaultValue 10000
   */
  maxOccurrences?: number;
  /** Called after each batch is enqueued (also emitted as the manager's `backfill` event). */
  onProgress?: (progress: BackfillProgress) => void;
  /**
   * The data of every run of this backfill instead of the schedule's `data` (as `triggerNow`'s `data`:
   * JSON, at most `OVERRIDE_DATA_MAX_BYTES`, 64 KiB, as JSON text). Each run's record names it
   * (`overrides`, `overriddenBy`) and the backfill's audit entry says `overrides: data`. The override is
   * kept with the ledger while any occurrence it took is owed: one that a scheduler replica enqueues for
   * a backfill whose process died runs with it too, recorded as overridden by the backfill's actor.
   * @defaultValue the schedule's
   */
  data?: unknown;
  /**
   * BullMQ options of every run of this backfill over the schedule's `jobOptions` (as `triggerNow`'s).
   * @defaultValue the schedule's
   */
  jobOptions?: PassthroughJobOptions;
}

/** Where an enqueueing backfill stands. */
export interface BackfillProgress {
  scheduleId: string;
  /** Occurrences enqueued so far. */
  enqueued: number;
  /** Occurrences this backfill enqueues in all. */
  total: number;
  done: boolean;
  /**
   * Set when the backfill stopped before enqueueing them all (`done` then true): `paused`, the schedule
   * was paused while it ran (what it enqueued before runs; the rest is not enqueued).
   */
  stopped?: BackfillStop;
}

/** Why a backfill stopped before enqueueing everything it took: `paused`, its schedule was paused. */
export type BackfillStop = 'paused';

/** What became (or, in a dry run, would become) of one occurrence of the range. */
export type BackfillStatus =
  | 'enqueued' // enqueued by this backfill (`to-enqueue` in a dry run)
  | 'to-enqueue'
  | 'ran' // its scheduled record shows it enqueued or run, or the fire loop passed over it: not run again
  | 'backfilled' // an earlier (or concurrent) backfill, or a resume's catch-up, took it
  | 'scheduled' // at or after the schedule's next due (or claimed) time: its own firing runs it
  | 'future' // after now
  | 'not-selected' // left out by `only`
  | 'stopped'; // taken, then not enqueued: the schedule was paused while the backfill ran (`stopped`)

export interface BackfillOccurrence {
  fireAt: number;
  status: BackfillStatus;
  /** The BullMQ job id (`bb-<id>-b<fireAt>`), for `enqueued` and `to-enqueue`. */
  jobId?: string;
}

/** The answer of `backfill()`. */
export interface BackfillResult {
  scheduleId: string;
  from: number;
  to: number;
  dryRun: boolean;
  /** The zone the trigger is read in (null for intervals and dates), to show the instants in. */
  timezone: string | null;
  /** Every occurrence of `[from, to)`, in order. */
  occurrences: BackfillOccurrence[];
  /** How many were enqueued (dry run: would be). */
  enqueued: number;
  /** How many were not, for the reasons in their status. */
  skipped: number;
  /**
   * Set when the backfill stopped before enqueueing all it took: `paused`, the schedule was paused
   * while it ran. `enqueued` then counts what was enqueued before the pause (those run), and the rest
   * have status `stopped`: not enqueued, and free for a later backfill or a resume's catch-up.
   */
  stopped?: BackfillStop;
}

/** `backfill()`'s options with the defaults applied once. */
export interface ResolvedBackfillOptions {
  from: number;
  to: number;
  overlap: OverlapPolicy;
  dryRun: boolean;
  only: BackfillOnly | undefined;
  ratePerSecond: number;
  maxOccurrences: number;
  onProgress: ((progress: BackfillProgress) => void) | undefined;
  /** Who backfills: its audit entries name them. */
  by: AuditActor;
  /** What each run carries instead of the schedule's (`names` empty: nothing). */
  overrides: RunOverrides;
}

const instant = z
  .union([z.number(), z.date(), z.string()], {
    error: (i) =>
      i.input === undefined
        ? 'required: an instant (epoch ms, a Date or an ISO 8601 date-time)'
        : `must be epoch ms, an ISO 8601 date-time or a valid Date, got ${show(i.input)}`,
  })
  .transform((v, ctx) => {
    let t = typeof v === 'number' ? v : v instanceof Date ? v.getTime() : Number.NaN;
    if (typeof v === 'string') {
      const dt = DateTime.fromISO(v, { zone: 'UTC' });
      if (!dt.isValid) {
        ctx.addIssue({
          code: 'custom',
          message: `cannot read ${show(v)} as an ISO 8601 date-time (${dt.invalidExplanation ?? dt.invalidReason})`,
        });
        return z.NEVER;
      }
      t = dt.toMillis();
    }
    const problem = Number.isFinite(t)
      ? instantProblem(t)
      : `must be a bounded instant (epoch ms, an ISO 8601 date-time or a valid Date), got ${show(v)}`;
    if (problem !== undefined) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return Math.ceil(t);
  });

const positive = (max: number, what: string) =>
  z
    .number({ error: (i) => `must be ${what} from 1 to ${max}, got ${show(i.input)}` })
    .min(1, { error: (i) => `must be ${what} from 1 to ${max}, got ${show(i.input)}` })
    .max(max, { error: (i) => `must be ${what} from 1 to ${max}, got ${show(i.input)}` });

/** The one rule per field of a backfill request: the library, the JSON API and the CLI check with it. */
export const backfillFields = {
  from: instant,
  to: instant,
  overlap: z
    .enum(OVERLAP_POLICIES, {
      error: (i) =>
        `must be one of ${OVERLAP_POLICIES.map((p) => `"${p}"`).join(', ')}, got ${show(i.input)}`,
    })
    .optional(),
  dryRun: z.boolean({ error: (i) => `must be a boolean, got ${show(i.input)}` }).optional(),
  only: z
    .enum(BACKFILL_ONLY, {
      error: (i) => `must be one of ${BACKFILL_ONLY.map((p) => `"${p}"`).join(', ')}, got ${show(i.input)}`,
    })
    .optional(),
  ratePerSecond: positive(100_000, 'a number').optional(),
  maxOccurrences: positive(1_000_000, 'a whole number')
    .int({ error: (i) => `must be a whole number from 1 to 1000000, got ${show(i.input)}` })
    .optional(),
};

const optionsSchema = z
  .strictObject(
    {
      ...backfillFields,
      by: z
        .string({ error: 'must be a string' })
        .min(1, { error: 'must not be empty' })
        .max(CHANGE_BY_MAX)
        .optional(),
      via: z.enum(AUDIT_SOURCES, { error: `must be one of ${AUDIT_SOURCES.join(', ')}` }).optional(),
      onBehalfOf: z.string({ error: 'must be a string' }).optional(),
      data: z.unknown().optional(),
      jobOptions: z.unknown().optional(),
      onProgress: z
        .custom<(p: BackfillProgress) => void>((f) => typeof f === 'function', {
          error: 'must be a function',
        })
        .optional(),
    },
    { error: unknownKey('option') },
  )
  .superRefine((o, ctx) => {
    if (o.from !== undefined && o.to !== undefined && o.to <= o.from) {
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: `must be after from (the range [from, to) is empty or reversed: from ${new Date(o.from).toISOString()}, to ${new Date(o.to).toISOString()})`,
      });
    }
  });

/** Check a backfill's options (errors name the schedule and the field) and apply the defaults. */
export function resolveBackfillOptions(scheduleId: string, options: unknown): ResolvedBackfillOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ScheduleOptionsError(scheduleId, 'options', 'must be an object { from, to, ... }');
  }
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const { field, reason } = firstProblem(parsed.error);
    throw new ScheduleOptionsError(scheduleId, field, reason);
  }
  const o = parsed.data;
  return {
    from: o.from,
    to: o.to,
    overlap: o.overlap ?? 'bufferAll',
    dryRun: o.dryRun ?? false,
    only: o.only,
    ratePerSecond: o.ratePerSecond ?? BACKFILL_DEFAULTS.ratePerSecond,
    maxOccurrences: o.maxOccurrences ?? BACKFILL_DEFAULTS.maxOccurrences,
    onProgress: o.onProgress,
    overrides: resolveRunOverrides(scheduleId, { data: o.data, jobOptions: o.jobOptions }),
    by: actorOf(scheduleId, {
      ...(o.by !== undefined && { by: o.by }),
      ...(o.via !== undefined && { via: o.via }),
      ...(o.onBehalfOf !== undefined && { onBehalfOf: o.onBehalfOf }),
    }),
  };
}
