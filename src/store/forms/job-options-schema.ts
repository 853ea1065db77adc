import type { JobsOptions } from 'bullmq';
import { z } from 'zod';
import { showValue as show } from './show-value.js';

/** BullMQ job options passed through to every occurrence's job (bullbeat owns `jobId`, `delay`, `repeat`). */
export type PassthroughJobOptions = Omit<JobsOptions, 'jobId' | 'delay' | 'repeat' | 'attempts' | 'backoff'>;

/** BullMQ 6's highest priority (`PRIORITY_LIMIT`, 2^21 - 1): a higher one fails `addBulk`. */
export const MAX_PRIORITY = 2_097_151;

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
  .strictObject(
    {
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
    },
    {
      error: (i) =>
        i.code === 'unrecognized_keys'
          ? 'unknown BullMQ job option'
          : i.code === 'invalid_type'
            ? `must be an object of BullMQ job options, got ${show(i.input)}`
            : undefined,
    },
  )
  .superRefine((o, ctx) => {
    const on = PARENT_FLAGS.filter((k) => o[k] === true);
    if (on.length > 1) ctx.addIssue({ code: 'custom', message: `${on.join(', ')} cannot be used together` });
  });
