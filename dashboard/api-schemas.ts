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
    nextFireTimes: z
      .array(ms)
      .describe('up to 5; empty unless active; for a jittered trigger its planned instants (see jitterMs)'),
    jitterMs: z
      .number()
      .int()
      .describe('the jitter of its trigger: each next fire time may run up to this much later; 0 without'),
    wakeUpTime: ms
      .optional()
      .describe(
        'when the scheduler next wakes for it (its stored due time), only when a calendar moves the run past it: nextFireTimes[0] is the run',
      ),
    lastFireAt: nullableMs,
    fired: z.number().int(),
    createdAt: nullableMs,
    counts,
    lastOutcome: z.string().nullable(),
    lastError: z.string().nullable(),
    badges: z.array(z.enum(['late', 'failing', 'no-worker'])),
    error: z.object({ reason: z.string(), at: nullableMs, fireAt: nullableMs }).nullable(),
    pauseNote: z
      .object({
        note: z.string(),
        by: z.string().describe('who authenticated'),
        onBehalfOf: z.string().optional().describe('whom the caller said it paused for (not checked)'),
        at: ms,
      })
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
  totalAtLeast: z
    .literal(true)
    .optional()
    .describe('`total` is a lower bound: a search counted past its page up to a budget of index entries'),
  offset: z.number().int().optional().describe('the page by offset (no `cursor` asked)'),
  limit: z.number().int(),
  cursor: z
    .string()
    .nullable()
    .optional()
    .describe("with `cursor` asked: the next page's cursor, null after the last page"),
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
    overrides: z
      .string()
      .optional()
      .describe('a manual or backfilled run: what it overrode (data, jobOptions; comma-separated)'),
    overriddenBy: z
      .string()
      .optional()
      .describe('a manual or backfilled run with overrides: who asked (its audit actor)'),
    lateness: z
      .number()
      .nullable()
      .describe("the first attempt's start (or the enqueue) minus the fire time, ms"),
    duration: z.number().nullable().describe('finish minus start, ms'),
  })
  .loose();

export const runsBody = z.object({ items: z.array(runRecord) });

const auditEntry = z
  .object({
    id: z.string().describe('the entry id (`<ms>-<seq>`): `before` for the next page'),
    at: ms.describe('when (Redis time)'),
    op: z
      .string()
      .describe(
        'create, update, restore, orphan, pause, resume, remove, trigger, backfill, errored, cleared',
      ),
    actor: z
      .string()
      .describe(
        'who authenticated: `dashboard:<user>`, `api:<token name>`, `cli:<user>@<host>`, `code`, `bullbeat` (the system)',
      ),
    source: z.string().describe('dashboard, api, cli, code or runtime'),
    onBehalfOf: z
      .string()
      .optional()
      .describe('whom the caller said it acted for: its own claim, not checked, never the actor'),
    note: z.string().optional().describe('pause: why'),
    policy: z.string().optional().describe('resume: skip, once or all'),
    runs: z.number().int().optional().describe('resume: catch-up runs; backfill: occurrences taken'),
    from: ms.optional().describe('backfill: the range [from, to)'),
    to: ms.optional(),
    reason: z.string().optional().describe('errored: why'),
    fireAt: ms.optional().describe('errored: the occurrence; trigger: the manual run'),
    jobId: z.string().optional().describe('trigger: the BullMQ job id'),
    overrides: z
      .string()
      .optional()
      .describe(
        "backfill: what its runs carry instead of the schedule's (data, jobOptions; comma-separated)",
      ),
    next: nullableMs.optional().describe('cleared: the next due time (null: completed)'),
    changes: z
      .array(z.object({ field: z.string(), before: z.unknown().optional(), after: z.unknown().optional() }))
      .optional()
      .describe('create, update, restore, remove: the definition fields before and after (absent: not set)'),
    definition: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('the definition after (remove: the one removed)'),
  })
  .loose();

export const historyBody = z.object({
  id: z.string(),
  removed: z.boolean().describe('the schedule is gone; its trail is kept a while after the remove'),
  keptUntil: nullableMs.describe('a removed schedule: when its trail goes (null while it exists)'),
  items: z.array(auditEntry).describe('newest first'),
});

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
  .describe('schedules by status and runs by outcome, counted over the whole deployment');

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

export const whyBody = z
  .object({
    scheduleId: z.string(),
    name: z.string(),
    queue: z.string(),
    at: ms.describe('the instant asked about (`at`; default now)'),
    now: ms.describe('Redis time of the answer'),
    occurrence: z
      .object({})
      .loose()
      .nullable()
      .describe('the occurrence the trigger gives at or before `at`'),
    fireAt: nullableMs.describe('its fire time as recorded (with jitter), when a record was found'),
    record: z.object({}).loose().nullable().describe('its run record, when one was found'),
    facts: z.array(
      z
        .object({
          link: z.enum(['trigger', 'claim', 'enqueue', 'worker', 'outcome', 'schedule']),
          at: ms.optional(),
          text: z.string(),
          ok: z.boolean().describe('false for a link that is missing or went wrong'),
        })
        .loose(),
    ),
    ran: z.boolean().describe('true when it ran to completion (succeeded)'),
    cause: z
      .string()
      .nullable()
      .describe('the first missing link (`not-due-yet`, `paused`, ...), null when it ran'),
    summary: z.string().describe('one sentence: what happened, or what is missing'),
  })
  .loose()
  .describe('Why an occurrence did or did not run: the chain trigger → claim → enqueue → worker → outcome');

export const agendaBody = z
  .object({
    from: ms,
    to: ms,
    entries: z.array(
      z
        .object({
          at: ms,
          scheduleId: z.string(),
          name: z.string(),
          queue: z.string(),
          zone: z.string().describe("the schedule's zone (UTC unless a cron trigger has one)"),
          local: z.string().describe('the instant as wall time in that zone, with its offset (ISO 8601)'),
          jitterMs: z.number().optional().describe('the instant may be up to this much later'),
          firesAt: ms
            .optional()
            .describe("a spread schedule's: when it fires (at, its nominal time, plus its offset)"),
        })
        .loose(),
    ),
    truncated: z.boolean().describe('true when the limit (5000) cut the list'),
    perQueue: z.record(z.string(), z.number().int()).describe('instants per queue in the window'),
    unknown: z
      .array(z.string())
      .describe('active schedules with a custom trigger this process does not define'),
  })
  .describe('Every fire instant of the window, all schedules merged in time order');

export const fleetBody = z
  .object({
    now: ms.describe('Redis time of the reading'),
    members: z.array(
      z
        .object({
          id: z.string(),
          role: z.string(),
          host: z.string(),
          pid: z.number().int(),
          version: z.string(),
          queues: z.array(z.string()),
          handlers: z.array(z.string()),
          handles: z
            .record(z.string(), z.array(z.string()))
            .optional()
            .describe('queue → the job names it handles there (absent for members of an older bullbeat)'),
          startedAt: ms,
          lastBeat: ms,
          heartbeatMs: z.number(),
          alive: z.boolean(),
        })
        .loose(),
    ),
    replicas: z.number().int().describe('alive scheduler replicas'),
    workers: z.number().int().describe('alive workers'),
    served: z.record(z.string(), z.array(z.string())).describe('queue → job names a live worker handles'),
    versions: z
      .record(z.string(), z.number().int())
      .describe('bullbeat version → live processes running it (those that registered none left out)'),
    mixedVersions: z.boolean().describe('live processes run more than one bullbeat version'),
    health: z
      .object({
        now: ms,
        late: z.number().int(),
        failing: z.number().int(),
        errored: z.number().int(),
        lateIds: z.array(z.string()),
        failingIds: z.array(z.string()),
        erroredIds: z.array(z.string()),
      })
      .loose()
      .describe('schedules late, failing (or served by no worker) and errored: counts and up to 20 ids each'),
  })
  .describe('The processes of the deployment (scheduler replicas, workers) and the health of its schedules');

const delivery = z.object({
  id: z
    .string()
    .describe('`<incident>|<notifier>|<event>`: the same on every attempt (receivers dedup by it)'),
  incident: z.string(),
  notifier: z.string(),
  event: z.enum(['opened', 'resolved']),
  createdAt: ms,
  attempts: z.number().int(),
  status: z.enum(['pending', 'retrying', 'sent', 'failed']),
  lastError: z.string().optional(),
  sentAt: ms.optional(),
  nextAt: ms.optional(),
});

export const alertsBody = z
  .object({
    incidents: z.array(
      z.object({
        id: z.string(),
        scheduleId: z.string(),
        cause: z.enum(['late', 'missed', 'failed', 'overdue', 'stuck', 'no-worker', 'no-scheduler']),
        occurrence: ms.describe('the fire time of the occurrence that opened it'),
        why: z.string().describe('what the records say of that occurrence'),
        queue: z.string().optional(),
        status: z.enum(['open', 'resolved']),
        openedAt: ms,
        resolvedAt: ms.optional(),
        resolvedWhy: z.string().optional(),
        notify: z.array(z.string()),
        deliveries: z.array(delivery),
      }),
    ),
    deliveryCounts: z
      .record(z.string(), z.record(z.string(), z.number()))
      .describe('notifier -> outcome -> attempts'),
    outbox: z.number().int().describe('deliveries waiting'),
    notifiers: z
      .record(z.string(), z.string())
      .describe('notifier name -> kind, as the scheduler replicas announced them'),
  })
  .describe('GET /api/alerts');

export const groupsBody = z
  .object({
    groups: z.array(
      z
        .object({
          key: z.string(),
          max: z.number().int().describe('runs allowed at once (the smallest its schedules declare)'),
          schedules: z.number().int().describe('schedules naming the group'),
          running: z.number().int().describe('runs going on now, on every worker'),
          waiting: z.number().int().describe('runs waiting for a place (overflow bufferOne/bufferAll)'),
        })
        .loose(),
    ),
  })
  .describe('Every group the schedules name (`group` option), with its occupancy now');

/** `GET /api/calendars/:name`: one named calendar, who uses it and its next days off. */
export const calendarBody = z
  .object({
    name: z.string(),
    version: z.number().int().describe('1 for the first definition, one more for each change'),
    spec: z.object({
      dates: z
        .array(
          z.object({
            date: z.string().describe('YYYY-MM-DD or YYYY-MM-DD..YYYY-MM-DD'),
            name: z.string().optional(),
          }),
        )
        .describe('days that are not business days'),
      rules: z.array(z.string()).describe('weekends, "exclude fri,sat", "business-day 3", last-business-day'),
    }),
    origin: z.string().describe('dates, ics, rules or mixed: what the definition came from'),
    at: ms.describe('when this version was written (Redis time)'),
    by: z.string().describe('who wrote it (the audit actor)'),
    schedules: z.array(z.string()).describe('ids of the schedules whose trigger names it'),
    nextExcluded: z
      .array(
        z.object({ date: z.string(), why: z.string().describe('2026-12-25 Christmas, 2026-12-26 Saturday') }),
      )
      .describe(
        'its next excluded days from today (UTC dates; a schedule reads them in its own zone), at most 10',
      ),
    error: z.string().optional().describe('why its content cannot be compiled, when it cannot'),
  })
  .loose();

/** `GET /api/calendars`: every named calendar. */
export const calendarsBody = z.object({ items: z.array(calendarBody) });
