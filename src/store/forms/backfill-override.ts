import type { PassthroughJobOptions } from './job-options-schema.js';

/**
 * What the runs of one backfill carry instead of their schedule's (`backfill(id, { data, jobOptions })`),
 * and who asked: kept with the ledger (`keys.backfillOverrides`) while any of its occurrences is owed, so
 * that whoever enqueues one (the backfill's process, or a replica's sweep after that process died) runs
 * it with the override and records it as overridden. JSON `{ "names", "data"?, "jobOptions"?, "by" }`.
 */
export interface BackfillOverride {
  /** What is overridden, `data` and/or `jobOptions` (never empty). */
  names: ('data' | 'jobOptions')[];
  /** The runs' data (when `names` holds `data`). */
  data?: unknown;
  /** BullMQ options laid over the schedule's `jobOptions` (when `names` holds `jobOptions`). */
  jobOptions?: PassthroughJobOptions;
  /** Who backfilled (the audit actor): each run's record says `overriddenBy`. */
  by: string;
}

export function encodeBackfillOverride(o: BackfillOverride): string {
  return JSON.stringify(o);
}

/** The one reader of a stored override: undefined for a value that is not one (never thrown). */
export function decodeBackfillOverride(v: string | null | undefined): BackfillOverride | undefined {
  if (!v) return undefined;
  let o: unknown;
  try {
    o = JSON.parse(v);
  } catch {
    return undefined;
  }
  if (typeof o !== 'object' || o === null) return undefined;
  const { names, data, jobOptions, by } = o as Record<string, unknown>;
  if (!Array.isArray(names) || names.length === 0) return undefined;
  if (!names.every((n) => n === 'data' || n === 'jobOptions')) return undefined;
  if (typeof by !== 'string') return undefined;
  const hasJobOptions = typeof jobOptions === 'object' && jobOptions !== null && !Array.isArray(jobOptions);
  if (names.includes('jobOptions') && !hasJobOptions) return undefined;
  return {
    names: names as BackfillOverride['names'],
    ...(names.includes('data') && { data: data ?? null }),
    ...(names.includes('jobOptions') && { jobOptions: jobOptions as PassthroughJobOptions }),
    by,
  };
}
