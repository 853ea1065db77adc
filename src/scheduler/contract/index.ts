// The scheduler's words: the options it takes and checks, the events it emits, the ScheduledJob it
// answers with. The other subfolders of the scheduler stand on it; it imports none of them.

export {
  type HeartbeatConfig,
  NOTIFIER_KINDS,
  type NotifierConfig,
  type NotifierKind,
  PAGERDUTY_EVENTS_URL,
  parseHeartbeat,
  parseNotifiers,
  type ResolvedAlertOptions,
} from './alert-options.js';
export { auditDetails, changeWords, fieldValue } from './audit-words.js';
export {
  BACKFILL_ONLY,
  BACKFILL_OVERLAP,
  type BackfillOccurrence,
  type BackfillOnly,
  type BackfillOptions,
  type BackfillOverlap,
  type BackfillProgress,
  type BackfillResult,
  type BackfillStatus,
  type BackfillStop,
  backfillFields,
  type ResolvedBackfillOptions,
  resolveBackfillOptions,
} from './backfill-options.js';
export { type CalendarInput, resolveCalendarInput } from './calendar-input.js';
export { actorOf, type ChangeOptions } from './change-options.js';
export { checkHandleOptions } from './check-handle-options.js';
export type { ForeignOutcomesOptions, ResolvedForeignOutcomesOptions } from './foreign-outcomes-options.js';
export type { HandleOptions } from './handle-options.js';
export { managerEnv, withManagerEnv } from './manager-env.js';
export { MANAGER_TUNING_KEYS, type ManagerTuning, managerTuning } from './manager-tuning.js';
export type { PauseOptions } from './pause-options.js';
export { inPlanMode, withPlanMode } from './plan-mode.js';
export { checkNotify, resolveDeploymentExpect } from './resolve-expectations.js';
export { type ResolvedTuning, resolveManagerOptions, retunedOptions } from './resolve-manager-options.js';
export { resolveScheduleOptions } from './resolve-schedule-options.js';
export {
  RESUME_POLICIES,
  type ResumeOptions,
  type ResumePolicy,
} from './resume-options.js';
export type { RevertOptions, RevertResult } from './revert-options.js';
export type { ScheduleExpectations } from './schedule-expectations.js';
export type {
  CronScheduleOptions,
  EveryOptions,
  GroupOverflow,
  GroupRule,
  MisfirePolicy,
  OverlapPolicy,
  PassthroughJobOptions,
  ScheduleOptions,
  ScheduleTarget,
} from './schedule-options.js';
export { applyPatch, optionsOfDefinition, type SchedulePatch } from './schedule-patch.js';
export type {
  PlannedAdd,
  PlannedCalendar,
  PlannedChange,
  PlannedEffect,
  PlannedRemoval,
  PlannedRename,
  PlannedSchedule,
  SchedulePlan,
} from './schedule-plan.js';
export { ScheduledJob, type ScheduledJobHost, type ScheduledJobJSON } from './scheduled-job.js';
export type {
  ErroredEvent,
  FailedEvent,
  FiredEvent,
  IncidentEvent,
  LateEvent,
  MissedEvent,
  SchedulerEvents,
  SkippedEvent,
  WakeEvent,
} from './scheduler-events.js';
export type {
  ResolvedManagerOptions,
  SchedulerManagerOptions,
  SchedulerRole,
} from './scheduler-manager-options.js';
export {
  OVERRIDE_DATA_MAX_BYTES,
  type RunOverrides,
  resolveRunOverrides,
  resolveTriggerNowOptions,
  type TriggerNowOptions,
} from './trigger-now-options.js';
