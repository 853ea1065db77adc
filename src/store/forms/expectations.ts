import { DateTime } from 'luxon';
import { z } from 'zod';
import { showValue as show } from './show-value.js';

// A schedule's expectations (`expect`): what must have happened to each occurrence, and by when. A
// user writes durations with their unit ('2m') and `succeededBy` as a wall time ('09:30', read in the
// schedule's zone) or a duration after the fire time; they are checked here once and stored in ms.

/** `'2m'`, `'30s'`, `'1.5h'`, `'500ms'`, `'1d'`: ms per unit. */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;
const WALL_TIME = /^(\d{1,2}):(\d{2})$/;
/** The longest expectation: a week. */
const MAX_MS = 7 * 86_400_000;

/** The ms a duration with its unit stands for, or the reason it is not one. */
export function parseDuration(v: unknown): { ms: number } | { problem: string } {
  const unitless = `must be a duration with a unit (ms, s, m, h, d: '30s', '2m'), got ${show(v)}`;
  if (typeof v !== 'string') return { problem: unitless };
  const m = DURATION.exec(v.trim());
  if (!m) return { problem: unitless };
  const ms = Math.round(Number(m[1]) * UNITS[m[2]!]!);
  if (ms <= 0) return { problem: `cannot be met: ${show(v)} leaves no time at all` };
  if (ms > MAX_MS) return { problem: `must be at most 7d, got ${show(v)}` };
  return { ms };
}

/** A duration as a user writes it: `120000` → `'2m'`. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return ms >= 1000 ? `${ms / 1000}s` : `${ms}ms`;
}

const duration = z.unknown().superRefine((v, ctx) => {
  const d = parseDuration(v);
  if ('problem' in d) ctx.addIssue({ code: 'custom', message: d.problem });
});

/** `succeededBy` read: a wall time, a duration after the fire time, or why it is neither. */
function readDeadline(v: unknown): StoredDeadline | { problem: string } {
  const wall = typeof v === 'string' ? WALL_TIME.exec(v.trim()) : null;
  if (wall) {
    const hour = Number(wall[1]);
    const minute = Number(wall[2]);
    if (hour > 23 || minute > 59) {
      return { problem: `cannot be met: ${show(v)} is no time of day (HH:mm, 00:00 to 23:59)` };
    }
    return { at: `${String(hour).padStart(2, '0')}:${wall[2]}` };
  }
  const d = parseDuration(v);
  if ('ms' in d) return { afterMs: d.ms };
  return {
    problem:
      typeof v === 'string' && DURATION.test(v.trim())
        ? d.problem
        : `must be a wall time 'HH:mm' in the schedule's zone or a duration after the fire time ('45m'), got ${show(v)}`,
  };
}

const succeededBy = z.unknown().superRefine((v, ctx) => {
  const d = readDeadline(v);
  if ('problem' in d) ctx.addIssue({ code: 'custom', message: d.problem });
});

const notifierName = z
  .string({ error: (i) => `must be a notifier name, got ${show(i.input)}` })
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/i, {
    error: (i) => `must be a notifier name (letters, digits, - and _), got ${show(i.input)}`,
  });

/** When an occurrence must have succeeded: a wall time in the schedule's zone, or ms after its fire time. */
export type StoredDeadline = { at: string } | { afterMs: number };

/** `expect` as stored with a definition: every duration in ms. */
export interface StoredExpectations {
  startedWithinMs?: number;
  succeededBy?: StoredDeadline;
  maxDurationMs?: number;
  failuresInARow?: number;
  notify?: string[];
}

/** `expect` as given (options, API bodies, CLI flags): checked, kept as written (`storedExpectationsOf` reads it). */
export const expectOption = z.strictObject(
  {
    startedWithin: duration.optional(),
    succeededBy: succeededBy.optional(),
    maxDuration: duration.optional(),
    failuresInARow: z
      .number({ error: (i) => `must be an integer >= 1, got ${show(i.input)}` })
      .int({ error: (i) => `must be an integer >= 1, got ${show(i.input)}` })
      .min(1, { error: (i) => `cannot be met: must be an integer >= 1, got ${show(i.input)}` })
      .optional(),
    notify: z
      .array(notifierName, { error: (i) => `must be an array of notifier names, got ${show(i.input)}` })
      .max(20, { error: 'must name at most 20 notifiers' })
      .optional(),
  },
  {
    error: (i) =>
      i.code === 'unrecognized_keys'
        ? 'unknown expectation'
        : `must be an object { startedWithin?, succeededBy?, maxDuration?, failuresInARow?, notify? }, got ${show(i.input)}`,
  },
);
export type ExpectInput = z.output<typeof expectOption>;

const msOf = (v: unknown): number => (parseDuration(v) as { ms: number }).ms;

/** Checked `expect` (by `expectOption`) in its stored form: durations in ms. */
export function storedExpectationsOf(e: ExpectInput): StoredExpectations {
  return {
    ...(e.startedWithin !== undefined && { startedWithinMs: msOf(e.startedWithin) }),
    ...(e.succeededBy !== undefined && { succeededBy: readDeadline(e.succeededBy) as StoredDeadline }),
    ...(e.maxDuration !== undefined && { maxDurationMs: msOf(e.maxDuration) }),
    ...(e.failuresInARow !== undefined && { failuresInARow: e.failuresInARow }),
    ...(e.notify !== undefined && { notify: [...new Set(e.notify)] }),
  };
}

/** A stored `expect` as a user writes it (what `update()` merges a patch into). */
export function expectInputOf(e: StoredExpectations): {
  startedWithin?: string;
  succeededBy?: string;
  maxDuration?: string;
  failuresInARow?: number;
  notify?: string[];
} {
  return {
    ...(e.startedWithinMs !== undefined && { startedWithin: formatDuration(e.startedWithinMs) }),
    ...(e.succeededBy !== undefined && {
      succeededBy: 'at' in e.succeededBy ? e.succeededBy.at : formatDuration(e.succeededBy.afterMs),
    }),
    ...(e.maxDurationMs !== undefined && { maxDuration: formatDuration(e.maxDurationMs) }),
    ...(e.failuresInARow !== undefined && { failuresInARow: e.failuresInARow }),
    ...(e.notify !== undefined && { notify: e.notify }),
  };
}

const storedMs = z.number().int().min(1).max(MAX_MS);
/** `expect` read back from a stored definition. */
export const storedExpectations = z.object({
  startedWithinMs: storedMs.optional(),
  succeededBy: z
    .union([z.object({ at: z.string().regex(WALL_TIME) }), z.object({ afterMs: storedMs })])
    .optional(),
  maxDurationMs: storedMs.optional(),
  failuresInARow: z.number().int().min(1).optional(),
  notify: z.array(z.string()).optional(),
});

/** True when `e` expects anything that is checked (an empty `expect` watches nothing). */
export function watches(e: StoredExpectations | undefined): e is StoredExpectations {
  return (
    e !== undefined &&
    (e.startedWithinMs !== undefined ||
      e.succeededBy !== undefined ||
      e.maxDurationMs !== undefined ||
      e.failuresInARow !== undefined)
  );
}

/**
 * Deployment defaults under a schedule's own expectations: each field the schedule gives wins.
 * Undefined when neither gives any.
 */
export function withDefaults(
  own: StoredExpectations | undefined,
  defaults: StoredExpectations | undefined,
): StoredExpectations | undefined {
  if (own === undefined && defaults === undefined) return undefined;
  return { ...defaults, ...own };
}

/**
 * The instant by which the occurrence due at `fireAt` must have succeeded. A duration is added to
 * the fire time. A wall time is its first instant at or after the fire time, read in `zone`: `09:30`
 * for a 09:00 occurrence is that day's 09:30, for a 10:00 one the next day's. On a spring-forward day
 * a wall time inside the gap is the instant the gap ends (02:30 in Europe/Paris → 03:00 CEST); on a
 * fall-back day a repeated wall time is its first pass.
 */
export function deadlineOf(deadline: StoredDeadline, fireAt: number, zone: string): number {
  if ('afterMs' in deadline) return fireAt + deadline.afterMs;
  const [hour, minute] = deadline.at.split(':').map(Number) as [number, number];
  const fire = DateTime.fromMillis(fireAt, { zone });
  for (let day = 0; day < 3; day++) {
    const date = fire.plus({ days: day });
    let at = DateTime.fromObject(
      { year: date.year, month: date.month, day: date.day, hour, minute },
      { zone },
    );
    if (at.hour !== hour || at.minute !== minute) at = at.startOf('hour'); // in a gap: its end
    const firstPass = at.minus({ hours: 1 }); // a repeated hour: luxon reads the second pass
    if (firstPass.hour === hour && firstPass.minute === minute && firstPass.toMillis() >= fireAt) {
      return firstPass.toMillis();
    }
    if (at.toMillis() >= fireAt) return at.toMillis();
  }
  return fireAt + 86_400_000; // unreachable for a valid zone
}

/** The expectations as a user writes them, for `schedule:show` and the dashboard. */
export function describeExpectations(e: StoredExpectations, zone: string): string {
  const parts: string[] = [];
  if (e.startedWithinMs !== undefined) parts.push(`started within ${formatDuration(e.startedWithinMs)}`);
  if (e.succeededBy !== undefined) {
    parts.push(
      'at' in e.succeededBy
        ? `succeeded by ${e.succeededBy.at} (${zone})`
        : `succeeded within ${formatDuration(e.succeededBy.afterMs)}`,
    );
  }
  if (e.maxDurationMs !== undefined) parts.push(`running at most ${formatDuration(e.maxDurationMs)}`);
  if (e.failuresInARow !== undefined) parts.push(`fewer than ${e.failuresInARow} failures in a row`);
  const who = e.notify?.length ? `; notify ${e.notify.join(', ')}` : '';
  return `${parts.join(', ') || 'nothing checked'}${who}`;
}
