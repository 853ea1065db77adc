export { JobStatus } from '../store/job-status.js';
export { type Keys, keys } from '../store/keys.js';
export {
  type ClusterConnection,
  openRedis,
  queuePrefixFor,
  type RedisTarget,
} from '../store/redis-target.js';
export { type RunCounter, RunHistory, type RunPatch } from '../store/run-history.js';
export type { PreviousAttempt, RunOutcome, RunRecord, SkipReason } from '../store/run-record.js';
export type { CustomTriggerJSON, ScheduleDefinition, ScheduleSource } from '../store/schedule-definition.js';
export { type OccurrencePlan, planOccurrence } from './occurrence-planner.js';
export type {
  CronScheduleOptions,
  EveryOptions,
  MisfirePolicy,
  PassthroughJobOptions,
  ScheduleOptions,
  ScheduleTarget,
} from './schedule-options.js';
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
  type HistoryAccess,
  type ListQuery,
  type ScheduleDecorator,
  SchedulerManager,
  type SchedulerStats,
} from './scheduler-manager.js';
export type { SchedulerManagerOptions, SchedulerRole } from './scheduler-manager-options.js';
export { type ExpressLike, setupScheduler } from './setup-scheduler.js';
