import type { BackoffOptions } from 'bullmq';
import type { Middleware } from '../../queue/pipeline.js';
import type {
  GroupRule,
  JobPayload,
  MisfirePolicy,
  OverlapPolicy,
  PassthroughJobOptions,
} from '../../store/index.js';
import type { OnExcluded } from '../../triggers/calendar-trigger.js';

export type {
  GroupOverflow,
  GroupRule,
  MisfirePolicy,
  OverlapPolicy,
  PassthroughJobOptions,
} from '../../store/index.js';

import type { ExceptEntry, ExceptEntryJSON } from '../../triggers/exclusion.js';
import type { ScheduleExpectations } from './schedule-expectations.js';

/**
 * Options of one schedule (`schedule()`, `every()`, `cron()`). Checked by the store's one schema
 * (`src/store/forms/definition-schema.ts`), which the JSON API and the CLI use too; the defaults below are
 * applied once, there (`SCHEDULE_DEFAULTS`). An unknown option is refused, naming it.
 */
export interface ScheduleOptions {
  /**
   * Stable id of the schedule in Redis.
   * @defaultValue the name
   */
  id?: string;
  /**
   * The BullMQ job name and the handler's name.
   * @defaultValue the function's name (required for an anonymous one)
   */
  name?: string;
  /**
   * The BullMQ queue its occurrences go to.
   * @defaultValue the manager's `defaultQueue` (named after its prefix: `'bullbeat'` by default)
   */
  queue?: string;
  /**
   * Positional arguments: the handler is called with `...args, ctx`. JSON values.
   * @defaultValue `[]`
   */
  args?: unknown[];
  /**
   * Free-form JSON data carried on each job, for consumers that are not bullbeat handlers.
   * @defaultValue none
   */
  data?: unknown;
  /**
   * What each job's `data` is. `'wrapped'`: bullbeat's envelope (`{ scheduleId, fireAt, kind, args,
   * prefix, run, data }`), read by bullbeat's workers. `'plain'`: the schedule's `data` alone, as a
   * BullMQ `Worker` written for it expects (`{}` when there is none); the job id still names the
   * occurrence, and bullbeat's own workers read the rest from the stored schedule.
   * @defaultValue `'wrapped'`
   */
  payload?: JobPayload;
  /**
   * How many runs of the schedule `overlap: 'skip'` lets go on at once, across every worker; `0` =
   * unlimited (the same as `overlap: 'allowAll'`). The buffering and cancelling policies run one at
   * a time and refuse any other number.
   * @defaultValue `1`
   */
  maxInstances?: number;
  /**
   * `true` is `overlap: 'skip'` with one run at a time; `false` leaves it to `maxInstances`. Read once,
   * when the schedule is defined, into `overlap` (stored as the definition's rule), with a deprecation
   * warning in the log once per schedule; a `coalesce: true` beside another `overlap`, or beside a
   * `maxInstances` other than 1, is refused naming `coalesce`.
   * @deprecated Give `overlap` (and `maxInstances`).
   */
  coalesce?: boolean;
  /**
   * What a run does when another run of the schedule is still going, cluster-wide (Temporal's
   * `ScheduleOverlapPolicy`): `'skip'` (recorded `skipped`, reason `overlap`), `'bufferOne'` (starts
   * when the running one ends; at most one waits, later ones are skipped as `buffer-full`),
   * `'bufferAll'` (each waits, in fire-time order), `'cancelOther'` (the running one is cancelled
   * through its `ctx.signal`, this one starts once it stopped) or `'allowAll'` (no limit, no lease).
   * The one overlap option: `'skip'` allows `maxInstances` runs at once, the buffering and cancelling
   * ones one. Resolved once, when the schedule is defined, into the rule stored with its definition
   * and carried on each job.
   * @defaultValue `'skip'` (`'allowAll'` when `maxInstances` is 0)
   */
  overlap?: OverlapPolicy;
  /**
   * After this many failed runs in a row (final failures, after retries), the schedule pauses
   * itself, with a note naming the last error; a success resets the count.
   * @defaultValue none (never)
   */
  pauseOnFailure?: number;
  /**
   * Middleware around the handler (`timeoutMiddleware`, `retryMiddleware`, your own `(handler, job) =>
   * handler`), first listed outermost; local to the process that defines the schedule.
   * @defaultValue `[]`
   */
  middleware?: Middleware[];
  /**
   * BullMQ attempts (1 = no retry).
   * @defaultValue `1`
   */
  attempts?: number;
  /**
   * BullMQ backoff between attempts (ms, or BullMQ's `{ type, delay }`).
   * @defaultValue none
   */
  backoff?: number | BackoffOptions;
  /**
   * The handler's deadline in ms (an `AbortSignal` plus a timeout error).
   * @defaultValue none
   */
  timeoutMs?: number;
  /**
   * Late occurrences: `'once'` one run for all, `'all'` each (up to `maxCatchUp`), `'skip'` none.
   * @defaultValue `'once'`
   */
  misfire?: MisfirePolicy;
  /**
   * An occurrence seen later than `fireAt + misfireGraceMs` is a misfire.
   * @defaultValue `60000`
   */
  misfireGraceMs?: number;
  /**
   * Occurrences older than this (relative to now) are never run, only recorded as missed.
   * @defaultValue unlimited
   */
  catchUpWindowMs?: number;
  /**
   * Under `misfire: 'all'`, at most this many late occurrences run (the newest).
   * @defaultValue `1000`
   */
  maxCatchUp?: number;
  /**
   * No occurrence before this instant (epoch ms or Date).
   * @defaultValue none
   */
  startAt?: number | Date;
  /**
   * No occurrence after this instant; the schedule completes.
   * @defaultValue none
   */
  endAt?: number | Date;
  /**
   * Complete after this many enqueued runs.
   * @defaultValue unlimited
   */
  maxRuns?: number;
  /**
   * Fire once when the schedule is created (BullMQ's `immediately`), then follow the trigger. Only a
   * creation fires it: a restart that upserts a code schedule already stored, an update, a resume
   * or an orphan restored does not (a schedule removed and defined again is created again). The
   * first run is at the creation instant, or at `startAt` when that is later.
   * @defaultValue `false`
   */
  immediately?: boolean;
  /**
   * Labels to find it by (`{ tenant: 'acme', team: 'billing' }`): selectors (`tenant=acme,team!=ops`)
   * pick schedules by them in `list`, `select(...)` (bulk pause, resume, remove, backfill) and the
   * agenda. Keys and values follow Kubernetes' rules (docs/labels.md); at most 64.
   * @defaultValue none
   */
  labels?: Record<string, string>;
  /**
   * Runs of schedules in one group never overlap anywhere in the cluster.
   * @defaultValue none
   */
  exclusionGroup?: string;
  /**
   * How long a run waits for its busy exclusion group before it is skipped (ms).
   * @defaultValue the worker's `exclusionWaitMs` (60000)
   */
  exclusionWaitMs?: number;
  /**
   * BullMQ job options passed through (priority, removeOnComplete, ...).
   * @defaultValue bullbeat's retention (see README)
   */
  jobOptions?: PassthroughJobOptions;
  /**
   * Occurrences the schedule does not fire at (public holidays, maintenance windows), read in the
   * trigger's zone: dates `'2026-12-25'`, date ranges `'2026-12-24..2026-12-26'`, cron expressions
   * (`'* * * * 0,6'`: matched to the minute) and triggers (their instants). The trigger is wrapped in
   * an `ExceptTrigger`; on a trigger that already is one, the list replaces its exclusions (`[]`
   * removes them). Excluded occurrences are not enqueued nor recorded, as if the trigger skipped them.
   * @defaultValue none
   */
  except?: (ExceptEntry | ExceptEntryJSON)[];
  /**
   * Deterministic spread (Jenkins' `H`): each occurrence fires at its time plus an offset in
   * `[0, spread)` derived from the schedule's id, the same on every replica and after every restart, so
   * that many schedules aligned on one instant fire spread over the window. The occurrence keeps its
   * nominal time as its identity (job id, record, `why`, backfill). A duration (`'30s'`, `'10m'`,
   * `'1h'`) or whole ms; at most the trigger's shortest gap between occurrences.
   * @defaultValue none (fires at the nominal time)
   */
  spread?: string | number;
  /**
   * At most `max` runs at once across every schedule naming the same `key`, counted on every worker
   * with leases (a dead worker's slot frees when its lease lapses). When the group is full, `overflow`
   * decides: `'skip'` (recorded `skipped`, reason `group`), `'bufferOne'` (one waits for a slot, others
   * are skipped) or `'bufferAll'` (each waits, in arrival order); a buffered run waits up to `waitMs`
   * (default: the worker's `exclusionWaitMs`), then is skipped. `max: 0` is refused.
   * @defaultValue none
   */
  group?: GroupRule;
  /**
   * What each occurrence must meet (started within, succeeded by, at most so long, failures in a
   * row) and who is told when it does not (see `ScheduleExpectations`, docs/being-told.md).
   * @defaultValue none (the manager's `expect` applies)
   */
  expect?: ScheduleExpectations;
  /**
   * A named calendar (`calendars.define(name, ...)`) whose business days the schedule fires on, read
   * in the trigger's zone when the schedule is planned: a change of the calendar reaches every schedule
   * that names it at once. Saving a schedule that names an undefined calendar is refused.
   * @defaultValue none
   */
  calendar?: string;
  /**
   * With `calendar`: what an occurrence on an excluded day does: `'skip'` it, move it to the same
   * wall-clock time on the `'next'` or `'previous'` included day (a business-day roll; not for interval
   * triggers). Occurrences rolled onto one instant run once.
   * @defaultValue `'skip'`
   */
  onExcluded?: OnExcluded;
}

/** `every(seconds, options)`: a schedule plus the interval trigger's options. */
export interface EveryOptions extends ScheduleOptions {
  /**
   * Random delay in `[0, jitter]` seconds added to each occurrence.
   * @defaultValue `0`
   */
  jitter?: number;
  /**
   * An instant on the interval's grid (epoch ms or Date).
   * @defaultValue `0` (the epoch)
   */
  anchor?: number | Date;
}

/** `cron(expression, options)`: a schedule plus the cron trigger's options. */
export interface CronScheduleOptions extends ScheduleOptions {
  /**
   * IANA time zone of the expression. Only `cron()` has one: `every()` and `schedule()` refuse it
   * (an interval is a duration; a trigger given to `schedule()` carries its own zone).
   * @defaultValue `'UTC'`
   */
  timezone?: string;
  /**
   * Random delay in `[0, jitter]` seconds added to each occurrence.
   * @defaultValue `0`
   */
  jitter?: number;
  /**
   * Day-of-month and day-of-week both restricted: `'or'` (Vixie) or `'and'`.
   * @defaultValue `'or'`
   */
  dayMatch?: 'or' | 'and';
  /**
   * DST overrides: `gap`, a matching time inside a spring-forward gap; `repeated`, one inside a
   * fall-back repeated hour (`overlap` is its earlier name, read as it: deprecated).
   * @defaultValue a fixed-time expression (single second, minute and hour) `{ gap: 'shift', repeated: 'first' }`;
   * an interval expression `{ gap: 'skip', repeated: 'both' }` (the Vixie cron / croner rules)
   */
  dst?: { gap?: 'shift' | 'skip'; repeated?: 'first' | 'both'; overlap?: 'first' | 'both' };
}

/** A schedule with no local function: occurrences go to `queue` as jobs named `name`, for any consumer. */
export interface ScheduleTarget {
  queue?: string;
  name: string;
}
