export {
  AUDIT_SOURCES,
  type AuditChange,
  type AuditEntry,
  type AuditOp,
  type AuditSource,
} from '../store/audit-entry.js';
export type { AuditQuery } from '../store/audit-trail.js';
export { JobStatus } from '../store/job-status.js';
export { type Keys, keys } from '../store/keys.js';
export type { PauseNote } from '../store/pause-note.js';
export {
  type ClusterConnection,
  openRedis,
  queuePrefixFor,
  type RedisTarget,
} from '../store/redis-target.js';
export { type RunCounter, RunHistory, type RunPatch } from '../store/run-history.js';
export type { PreviousAttempt, RunOutcome, RunRecord, SkipReason } from '../store/run-record.js';
export type { CustomTriggerJSON, ScheduleDefinition, ScheduleSource } from '../store/schedule-definition.js';
export { auditDetails, changeWords, fieldValue } from './audit-words.js';
export { type BackfillRun, backfillInstants } from './backfill.js';
export {
  BACKFILL_DEFAULTS,
  BACKFILL_OVERLAP,
  type BackfillOccurrence,
  type BackfillOptions,
  type BackfillOverlap,
  type BackfillProgress,
  type BackfillResult,
  type BackfillStatus,
  backfillFields,
  resolveBackfillOptions,
} from './backfill-options.js';
export type { ChangeOptions } from './change-options.js';
export type { HandleOptions } from './handle-options.js';
export { NamedHandler } from './named-handler.js';
export { type OccurrencePlan, planOccurrence } from './occurrence-planner.js';
export type { PauseOptions } from './pause-options.js';
export {
  DEFAULT_RESUME_MAX_CATCH_UP,
  RESUME_POLICIES,
  type ResumeOptions,
  type ResumePolicy,
} from './resume-options.js';
export type {
  CronScheduleOptions,
  EveryOptions,
  MisfirePolicy,
  OverlapPolicy,
  PassthroughJobOptions,
  ScheduleOptions,
  ScheduleTarget,
} from './schedule-options.js';
export { optionsOfDefinition, type SchedulePatch } from './schedule-patch.js';
export { ScheduledJob, type ScheduledJobJSON } from './scheduled-job.js';
export type {
  FailedEvent,
  FiredEvent,
  LateEvent,
  MissedEvent,
  SchedulerEvents,
  SkippedEvent,
  WakeEvent,
} from './scheduler-events.js';
export {
  type HandlerDecorator,
  type HistoryAccess,
  type ListQuery,
  type ScheduleDecorator,
  SchedulerManager,
  type SchedulerStats,
} from './scheduler-manager.js';
export type { SchedulerManagerOptions, SchedulerRole } from './scheduler-manager-options.js';
export { type ExpressLike, setupScheduler } from './setup-scheduler.js';
