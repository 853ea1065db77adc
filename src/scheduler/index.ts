export { auditDetails, changeWords, fieldValue } from './audit-words.js';
export type { BackfillRun } from './backfill.js';
export {
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
export type { PauseOptions } from './pause-options.js';
export type { ResumeOptions, ResumePolicy } from './resume-options.js';
export type {
  CronScheduleOptions,
  EveryOptions,
  MisfirePolicy,
  OverlapPolicy,
  PassthroughJobOptions,
  ScheduleOptions,
  ScheduleTarget,
} from './schedule-options.js';
export type { SchedulePatch } from './schedule-patch.js';
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
