/**
 * bullbeat's public API: everything `import … from 'bullbeat'` can name, listed by hand.
 *
 * What a user writes or reads is here: the manager and its options, the triggers, the worker and its
 * middleware, the records and events a run leaves, the operations side, and the errors to catch. The
 * folders' own `index.ts` files are internal doors between the folders of the code, not entry points
 * (`package.json` exports this file, `bullbeat/dashboard` and `bullbeat/nest` only); what is not named
 * here is free to change. `etc/bullbeat.api.md` is api-extractor's report of this surface, members
 * included: a name or member added or removed changes that report too (`npm run api:update`), on purpose.
 */

// cron expressions on their own: next/prev/matches, and a description in words
export {
  type CronOptions,
  CronParser,
  type DescribeOptions,
  type DstPolicy,
  describeCron,
} from './cron/index.js';

// errors: one class per failure, all extending BullbeatError
export {
  AmbiguousHandlerError,
  BullbeatError,
  ConfigError,
  type CronField,
  CronSyntaxError,
  InvalidTimezoneError,
  JobsModuleError,
  LeaseLostError,
  RedisCommandTimeoutError,
  RedisUnreachableError,
  RunCancelledError,
  ScheduleNotFoundError,
  ScheduleOptionsError,
  TimeoutError,
  TriggerBudgetError,
  TriggerError,
  UnknownHandlerError,
  WorkerShutdownError,
} from './errors/index.js';

// insight: the agenda, and why an occurrence did not run
export {
  type Agenda,
  type AgendaEntry,
  type AgendaOptions,
  agenda,
  type ExpectedOccurrence,
  type WhyCause,
  type WhyFact,
  type WhyOptions,
  type WhyReport,
  whyDidntItRun,
} from './insight/index.js';

// logging: the pino hook that keeps a log line's keys unique
export { uniqueKeys } from './logging/index.js';

// operations: Prometheus metrics, the metrics server, joining the fleet
export {
  type FleetMembership,
  type FleetRole,
  type JoinFleetOptions,
  joinFleet,
  type MetricsServer,
  type MetricsServerOptions,
  type ProcessMetricsOptions,
  type ProcessOps,
  type ProcessOpsOptions,
  SchedulerMetrics,
  type SchedulerMetricsSource,
  serveMetrics,
  startProcessOps,
  WorkerMetrics,
  type WorkerMetricsSource,
} from './ops/index.js';

// the worker: createWorker, what a handler is given, middleware
export {
  type CancelledResult,
  type CreateWorkerOptions,
  type Middleware,
  type MiddlewareStage,
  type NextHandler,
  type PausedOnFailureEvent,
  type QueueRateLimit,
  type RateLimitMiddlewareOptions,
  type RetryMiddlewareOptions,
  type RunContext,
  type RunHandler,
  rateLimitMiddleware,
  retryMiddleware,
  type ScheduledJobLike,
  type SkippedResult,
  type TimeoutMiddlewareOptions,
  timeoutMiddleware,
  type WorkerClock,
  type WorkerHandle,
} from './queue/index.js';

// the manager: its options, schedules and what they are given, changes, backfill, its events
export {
  BACKFILL_OVERLAP,
  type BackfillOccurrence,
  type BackfillOptions,
  type BackfillOverlap,
  type BackfillProgress,
  type BackfillResult,
  type BackfillRun,
  type BackfillStatus,
  type BackfillStop,
  type ChangeOptions,
  type CronScheduleOptions,
  createWorker,
  type ErroredEvent,
  type EveryOptions,
  type ExpressLike,
  type FailedEvent,
  type FiredEvent,
  type ForeignOutcomesOptions,
  type HandleOptions,
  type HandlerDecorator,
  type HistoryAccess,
  type JobFunction,
  type LateEvent,
  type ListQuery,
  type MisfirePolicy,
  type MissedEvent,
  type OverlapPolicy,
  type PassthroughJobOptions,
  type PauseOptions,
  RESUME_POLICIES,
  type ResumeOptions,
  type ResumePolicy,
  type RunHistoryReader,
  type ScheduleDecorator,
  ScheduledJob,
  type ScheduledJobJSON,
  type ScheduleOptions,
  type SchedulePatch,
  type SchedulerEvents,
  SchedulerManager,
  type SchedulerManagerOptions,
  type SchedulerRole,
  type SchedulerStats,
  type ScheduleTarget,
  type SkippedEvent,
  setupScheduler,
  type WakeEvent,
} from './scheduler/index.js';

// the store: run records and counters, the audit trail, a schedule's status and pause note, a cluster connection
export {
  AUDIT_SOURCES,
  type AuditChange,
  type AuditEntry,
  type AuditOp,
  type AuditQuery,
  type AuditSource,
  type ClusterConnection,
  type CoalesceCause,
  type CustomTriggerJSON,
  definitionSchema,
  JOB_PAYLOADS,
  type JobPayload,
  JobStatus,
  MISFIRE_POLICIES,
  OVERLAP_POLICIES,
  type PauseNote,
  type PreviousAttempt,
  type RunCounter,
  type RunOutcome,
  type RunRecord,
  type ScheduleDefinition,
  type ScheduleErrorInfo,
  type ScheduleSource,
  type ScheduleState,
  ScheduleStatus,
  type SkipReason,
  StateCode,
} from './store/index.js';

// triggers: when a schedule fires, and their JSON form
export {
  CompoundLogic,
  CompoundTrigger,
  type CompoundTriggerJSON,
  CronTrigger,
  type CronTriggerJSON,
  type CronTriggerOptions,
  DateTrigger,
  type DateTriggerJSON,
  type DueAware,
  type DueContext,
  describeTrigger,
  type ExceptEntry,
  type ExceptEntryJSON,
  ExceptTrigger,
  type ExceptTriggerJSON,
  type ExceptTriggerOptions,
  IntervalTrigger,
  type IntervalTriggerJSON,
  type IntervalTriggerOptions,
  type SerializableTrigger,
  type Trigger,
  type TriggerJSON,
  triggerFromJSON,
} from './triggers/index.js';
