import type { ForeignOutcome, RunRecord } from '../../store/index.js';

// What a finished BullMQ job's hash says of its run, read by `ForeignOutcomes`.

/** The BullMQ job fields an outcome is read from. */
export const JOB_FIELDS = [
  'processedOn',
  'finishedOn',
  'atm',
  'attemptsMade',
  'failedReason',
  'data',
] as const;

/** The fields of a job's hash an outcome is made of (and, from its data, whose it is). */
export interface JobFields {
  processedOn?: number;
  finishedOn?: number;
  attempts?: number;
  failedReason?: string;
  prefix?: string;
  kind?: RunRecord['kind'];
}

/**
 * Decode the values of `JOB_FIELDS`, as `HMGET` answers them (or the first five, without the data, as
 * `finished-jobs-1` reads them with a finished event).
 */
export function jobFields(raw: unknown): JobFields {
  const [processedOn, finishedOn, atm, attemptsMade, failedReason, data] = (
    Array.isArray(raw) ? raw : []
  ) as (string | null)[];
  const num = (v: string | null | undefined) =>
    v !== null && v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined;
  const out: JobFields = {};
  const p = num(processedOn);
  if (p !== undefined) out.processedOn = p;
  const f = num(finishedOn);
  if (f !== undefined) out.finishedOn = f;
  const a = num(atm) ?? num(attemptsMade);
  if (a !== undefined) out.attempts = a;
  if (failedReason) out.failedReason = failedReason;
  if (data) {
    try {
      const d = JSON.parse(data) as { prefix?: unknown; kind?: unknown };
      if (typeof d.prefix === 'string') out.prefix = d.prefix;
      if (d.kind === 'scheduled' || d.kind === 'manual' || d.kind === 'catch-up' || d.kind === 'backfill')
        out.kind = d.kind;
    } catch {
      // not a bullbeat job's data
    }
  }
  return out;
}

/** The outcome of a finished job, as a foreign consumer's record says it. */
export function outcomeOf(
  job: JobFields,
  state: 'completed' | 'failed',
  failedReason: string | undefined,
): Pick<ForeignOutcome, 'outcome' | 'startedAt' | 'finishedAt' | 'attempts' | 'error'> {
  const error = state === 'failed' ? (failedReason ?? job.failedReason ?? 'failed') : undefined;
  // (plain assignments, not conditional spreads: this runs once per outcome)
  const out: ReturnType<typeof outcomeOf> = { outcome: state === 'completed' ? 'succeeded' : 'failed' };
  if (job.processedOn !== undefined) out.startedAt = job.processedOn;
  if (job.finishedOn !== undefined) out.finishedAt = job.finishedOn;
  if (job.attempts !== undefined) out.attempts = job.attempts;
  if (error !== undefined) out.error = error;
  return out;
}
