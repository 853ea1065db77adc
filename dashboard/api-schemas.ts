import { z } from 'zod';

// The shapes the JSON API answers with, as zod schemas: the OpenAPI description (openapi.ts) is made
// from them, and a test checks real responses against that description.

const ms = z.number().describe('epoch milliseconds');
const nullableMs = ms.nullable();

export const errorBody = z
  .object({
    error: z.string().describe('what was wrong, naming the field: `trigger.expression: ...`'),
    field: z.string().optional().describe('the request field at fault (`(body)` for the body itself)'),
    reason: z.string().optional(),
    id: z.string().optional(),
  })
  .describe(
    'An error: 400 bad input, 401/429 credentials, 403 CSRF or host, 404 unknown, 405 read-only, 409 code schedule',
  );

const counts = z.object({
  runs: z.number().int(),
  errors: z.number().int(),
  skipped: z.number().int(),
  missed: z.number().int(),
  coalesced: z
    .number()
    .int()
    .describe('occurrences not enqueued while the previous one still waited in its queue (backpressure)'),
});

export const scheduleView = z
  .object({
    id: z.string(),
    name: z.string(),
    queue: z.string(),
    source: z.enum(['code', 'runtime']),
    status: z.enum(['active', 'paused', 'completed', 'cancelled', 'errored']),
    orphaned: z.boolean(),
    description: z.string().describe('the trigger in words, time zone included'),
    timezone: z.string().nullable(),
    nextFireTimes: z.array(ms).describe('up to 5; empty unless active'),
    lastFireAt: nullableMs,
    fired: z.number().int(),
    createdAt: nullableMs,
    counts,
    lastOutcome: z.string().nullable(),
    lastError: z.string().nullable(),
    badges: z.array(z.enum(['late', 'failing', 'no-worker'])),
    error: z.object({ reason: z.string(), at: nullableMs, fireAt: nullableMs }).nullable(),
    pauseNote: z
      .object({ note: z.string(), by: z.string(), at: ms })
      .nullable()
      .describe('while paused: why, who paused it and when; null otherwise'),
    definition: z
      .object({
        id: z.string(),
        name: z.string(),
        queue: z.string(),
        trigger: z.object({ type: z.string() }),
      })
      .loose()
      .describe('the stored definition, every option resolved'),
  })
  .describe('One schedule');

export const schedulePage = z.object({
  total: z.number().int(),
  offset: z.number().int(),
  limit: z.number().int(),
  items: z.array(scheduleView),
});

export const runRecord = z
  .object({
    scheduleId: z.string(),
    fireAt: ms,
    kind: z.enum(['scheduled', 'manual', 'catch-up', 'backfill']),
    outcome: z.enum(['enqueued', 'running', 'retrying', 'succeeded', 'failed', 'skipped', 'missed']),
    reason: z.string().optional(),
    enqueuedAt: ms.optional(),
    startedAt: ms.optional(),
    finishedAt: ms.optional(),
    attempts: z.number().int().optional(),
    error: z.string().optional(),
    jobId: z.string().optional(),
    lateness: z.number().nullable().describe('start (or enqueue) minus the fire time, ms'),
    duration: z.number().nullable().describe('finish minus start, ms'),
  })
  .loose();

export const runsBody = z.object({ items: z.array(runRecord) });

export const actionBody = z.object({ id: z.string(), changed: z.boolean(), schedule: scheduleView });

export const triggerBody = z.object({ id: z.string(), jobId: z.string(), fireAt: ms });

export const removeBody = z.object({ id: z.string(), removed: z.literal(true) });

export const statsBody = z
  .object({
    jobsTotal: z.number().int(),
    jobsActive: z.number().int(),
    jobsPaused: z.number().int(),
    jobsCompleted: z.number().int(),
    jobsErrored: z.number().int(),
    runs: z.number().int(),
    errors: z.number().int(),
    skipped: z.number().int(),
    missed: z.number().int(),
    coalesced: z.number().int(),
    erroredTotal: z.number().int(),
    uptime: z
      .number()
      .nullable()
      .describe(
        "seconds since this process's scheduler started; null when it runs none (a standalone dashboard)",
      ),
  })
  .describe("Sillo's scheduler stats, counted over the whole deployment");

export const previewBody = z.object({
  description: z.string(),
  next: z.array(ms),
  trigger: z.object({ type: z.string() }).loose(),
});

export const queuesBody = z.object({ queues: z.array(z.string()) });

export const backfillBody = z
  .object({
    scheduleId: z.string(),
    from: ms.describe('the start of the range, inclusive'),
    to: ms.describe('the end of the range, exclusive'),
    dryRun: z.boolean(),
    timezone: z.string().nullable().describe("the trigger's zone, to show the instants in"),
    occurrences: z.array(
      z.object({
        fireAt: ms,
        status: z
          .enum(['enqueued', 'to-enqueue', 'ran', 'backfilled', 'scheduled', 'future'])
          .describe(
            "`enqueued` (dry run: `to-enqueue`); not run: `ran` (its scheduled record shows it enqueued or run, or the schedule's own firing passed over it), `backfilled` (a backfill or a resume's catch-up took it), `scheduled` (the schedule fires it itself), `future`",
          ),
        jobId: z.string().optional(),
      }),
    ),
    enqueued: z.number().int(),
    skipped: z.number().int(),
  })
  .describe('The occurrences of [from, to) by the schedule’s own trigger, and what became of each');
