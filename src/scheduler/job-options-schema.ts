import { z } from 'zod';

/** BullMQ 6's highest priority (`PRIORITY_LIMIT`, 2^21 - 1): a higher one fails `addBulk`. */
export const MAX_PRIORITY = 2_097_151;

const show = (v: unknown): string => {
  try {
    return typeof v === 'number' ? String(v) : (JSON.stringify(v) ?? String(v));
  } catch {
    return String(v);
  }
};
const count = (what: string) =>
  z
    .number({ error: (i) => `must be ${what}, got ${show(i.input)}` })
    .int({ error: (i) => `must be ${what}, got ${show(i.input)}` })
    .min(0, { error: (i) => `must be ${what}, got ${show(i.input)}` });
const bool = z.boolean({ error: (i) => `must be a boolean, got ${show(i.input)}` });
const setByBullbeat = (why: string) => z.never({ error: why }).optional();

/** BullMQ's `KeepJobs`: true/false, a count, or `{ count }` / `{ age, count? }` (seconds). */
const keepJobs = z.union(
  [
    bool,
    count('an integer >= 0'),
    z.strictObject({ count: count('an integer >= 0') }),
    z.strictObject({ age: count('an integer >= 0 (seconds)'), count: count('an integer >= 0').optional() }),
  ],
  { error: (i) => `must be a boolean, a count, { count } or { age, count? }, got ${show(i.input)}` },
);

const PARENT_FLAGS = [
  'failParentOnFailure',
  'continueParentOnFailure',
  'ignoreDependencyOnFailure',
  'removeDependencyOnFailure',
] as const;

/**
 * The BullMQ job options a schedule may pass through, checked as BullMQ 6's `Job.validateOptions`
 * checks them when a job is added (so a bad one is refused when the schedule is defined, naming the
 * field, instead of failing the `addBulk` of every schedule on its queue). Options bullbeat sets
 * itself (`jobId`, `delay`, `repeat`, `attempts`, `backoff`, `timestamp`) and options that make no
 * sense for a scheduled occurrence (`parent`, `repeatJobKey`, `prevMillis`) are refused. `sizeLimit`
 * is checked against the data when each job is added (the enqueue isolates a job that exceeds it).
 */
export const jobOptionsSchema = z
  .strictObject({
    priority: count(`an integer from 0 to ${MAX_PRIORITY}`)
      .max(MAX_PRIORITY, {
        error: (i) => `must be an integer from 0 to ${MAX_PRIORITY}, got ${show(i.input)}`,
      })
      .optional(),
    lifo: bool.optional(),
    removeOnComplete: keepJobs.optional(),
    removeOnFail: keepJobs.optional(),
    keepLogs: count('an integer >= 0').optional(),
    stackTraceLimit: count('an integer >= 0').optional(),
    sizeLimit: count('an integer number of bytes >= 1')
      .min(1, { error: (i) => `must be an integer number of bytes >= 1, got ${show(i.input)}` })
      .optional(),
    deduplication: z
      .strictObject(
        {
          id: z.string({ error: 'is required: a non-empty string' }).min(1, { error: 'must not be empty' }),
          ttl: count('an integer >= 0 (ms)').optional(),
          extend: bool.optional(),
          replace: bool.optional(),
          reschedule: bool.optional(),
          keepLastIfActive: bool.optional(),
        },
        { error: (i) => `must be an object { id, ttl?, ... }, got ${show(i.input)}` },
      )
      .optional(),
    telemetry: z.strictObject({ metadata: z.string().optional(), omitContext: bool.optional() }).optional(),
    failParentOnFailure: bool.optional(),
    continueParentOnFailure: bool.optional(),
    ignoreDependencyOnFailure: bool.optional(),
    removeDependencyOnFailure: bool.optional(),
    jobId: setByBullbeat('is set by bullbeat (one job id per occurrence, for exactly-once)'),
    delay: setByBullbeat('is not allowed: an occurrence is enqueued at its fire time'),
    repeat: setByBullbeat('is not allowed: the schedule is the repeat'),
    attempts: setByBullbeat('is a schedule option: give `attempts` beside jobOptions'),
    backoff: setByBullbeat('is a schedule option: give `backoff` beside jobOptions'),
    timestamp: setByBullbeat('is set by BullMQ when the occurrence is enqueued'),
    parent: setByBullbeat('is not allowed: an occurrence job has no parent'),
    repeatJobKey: setByBullbeat('is not allowed: the schedule is the repeat'),
    prevMillis: setByBullbeat('is not allowed: the schedule is the repeat'),
    debounce: setByBullbeat('was removed from BullMQ: use deduplication'),
  })
  .superRefine((o, ctx) => {
    const on = PARENT_FLAGS.filter((k) => o[k] === true);
    if (on.length > 1) ctx.addIssue({ code: 'custom', message: `${on.join(', ')} cannot be used together` });
  });

/** Check job options; the first problem as `{ field: 'jobOptions.priority', reason }`, or undefined. */
export function jobOptionsProblem(value: unknown): { field: string; reason: string } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { field: 'jobOptions', reason: `must be an object of BullMQ job options, got ${show(value)}` };
  }
  const result = jobOptionsSchema.safeParse(value);
  if (result.success) return undefined;
  const issue = result.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const field = ['jobOptions', ...keys.map(String)].join('.');
  const reason = issue.code === 'unrecognized_keys' ? 'unknown BullMQ job option' : issue.message;
  return { field, reason };
}
