import { z } from 'zod';
import { errors, input, ok, query, write } from './openapi.js';
import {
  batchSchema,
  bulkBackfillSchema,
  bulkPauseSchema,
  bulkRemoveSchema,
  bulkResumeSchema,
} from './schedule-batch.js';

type Json = Record<string, unknown>;

/** What a bulk route answers (the library's `BulkResult`). */
const bulkResult = z.object({
  changeId: z.string().describe("its entry in the deployment's bulk trail"),
  selector: z.string().optional(),
  matched: z.number().describe('how many schedules it named'),
  count: z.number().describe('how many it changed'),
  failed: z.array(z.object({ id: z.string(), error: z.string() })),
});

/** What `POST /schedules:backfill` answers (the library's `SelectionBackfillResult`). */
const bulkBackfillResult = bulkResult.extend({
  dryRun: z.boolean().describe('true: nothing enqueued, the answer says what would be'),
  from: z.number(),
  to: z.number(),
  enqueued: z.number().describe('occurrences enqueued over every schedule (dry run: would be)'),
  schedules: z.array(
    z.object({
      scheduleId: z.string(),
      enqueued: z.number(),
      skipped: z.number(),
      fireTimes: z.array(z.number()).describe('the fire times enqueued (dry run: to enqueue)'),
      stopped: z.literal('paused').optional(),
    }),
  ),
});

const bulkChange = z.object({
  id: z.string(),
  at: z.number(),
  op: z.enum(['create', 'pause', 'resume', 'remove', 'backfill']),
  actor: z.string(),
  source: z.string(),
  onBehalfOf: z.string().optional(),
  selector: z.string().optional(),
  matched: z.number(),
  count: z.number(),
  detail: z.string().optional(),
});

const body = (t: z.ZodType): Json => ({
  required: true,
  content: { 'application/json': { schema: input(t) } },
});

/** The bulk routes of `bulk-routes.ts`, for `openApiDocument`. */
export function bulkPaths(): Json {
  const bySelector = (summary: string, t: z.ZodType) => ({
    post: write({
      summary,
      requestBody: body(t),
      responses: { ...ok('what it matched and changed', bulkResult), ...errors(400, 403, 405) },
    }),
  });
  return {
    '/schedules:batch': {
      post: write({
        summary:
          'Create or replace many schedules (each as POST /schedules takes it, without `replace`): all are checked first, the first bad one answered 400 as `schedules[i].<field>`, nothing written',
        requestBody: body(batchSchema),
        responses: { ...ok('how many were saved', bulkResult), ...errors(400, 403, 405) },
      }),
    },
    '/schedules:pause': bySelector(
      'Pause every active schedule a label selector picks, with one note',
      bulkPauseSchema,
    ),
    '/schedules:resume': bySelector(
      'Resume every schedule a label selector picks, under one policy',
      bulkResumeSchema,
    ),
    '/schedules:remove': bySelector('Remove every schedule a label selector picks', bulkRemoveSchema),
    '/schedules:backfill': {
      post: write({
        summary:
          'Backfill [from, to) of every schedule a label selector picks, each by its own trigger; `dryRun` lists what it would enqueue, per schedule. Answers once everything is enqueued',
        requestBody: body(bulkBackfillSchema),
        responses: {
          ...ok('what it enqueued (or would), per schedule', bulkBackfillResult),
          ...errors(400, 403, 405),
        },
      }),
    },
    '/bulk-changes': {
      get: {
        summary: "The deployment's bulk changes, newest first, each with its count",
        parameters: [query('limit', 'at most this many (default 50, at most 1000)', 'integer')],
        responses: { ...ok('the bulk trail', z.object({ items: z.array(bulkChange) })), ...errors(400) },
      },
    },
  };
}
