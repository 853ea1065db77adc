// The door of src/store/forms/: what the store's other rooms use of it.

export { type AuditBy, type AuditConfig, auditSlots, DEFAULT_AUDIT } from './audit-config.js';
export {
  AUDIT_SOURCES,
  type AuditActor,
  type AuditChange,
  type AuditEntry,
  type AuditOp,
  type AuditSource,
  CODE_ACTOR,
  compareStreamIds,
  decodeAuditEntry,
  definitionChanges,
  firstAuditEntry,
  RUNTIME_ACTOR,
  SYSTEM_ACTOR,
} from './audit-entry.js';
export {
  type BackfillOverride,
  decodeBackfillOverride,
  encodeBackfillOverride,
} from './backfill-override.js';
export {
  type CalendarChange,
  type CalendarOrigin,
  decodeCalendar,
  encodeCalendar,
  type StoredCalendar,
} from './calendar-record.js';
export { type ClaimRow, claimReplica, decodeClaimRow, encodeClaimRow } from './claim-row.js';
export {
  type CustomTriggerJSON,
  definitionFrom,
  definitionSchema,
  firstProblem,
  type ScheduleDefinition,
  type ScheduleSource,
  scheduleFields,
  scheduleOptionsSchema,
  unknownKey,
} from './definition-schema.js';
export {
  deadlineOf,
  describeExpectations,
  expectInputOf,
  expectOption,
  formatDuration,
  parseDuration,
  type StoredDeadline,
  type StoredExpectations,
  storedExpectationsOf,
  watches,
  withDefaults,
} from './expectations.js';
export { GROUP_OVERFLOWS, type GroupOverflow, type GroupRule, groupLeaseName } from './group-options.js';
export {
  type Delivery,
  type DeliveryEvent,
  INCIDENT_CAUSES,
  type Incident,
  type IncidentCause,
  parseDelivery,
  parseIncident,
} from './incident.js';
export { jobOptionsSchema, type PassthroughJobOptions } from './job-options-schema.js';
export {
  jobDataFor,
  jobOptionsFor,
  OCCURRENCE_JOB_ID_PREFIX,
  type OccurrenceJobData,
  occurrenceJobId,
  parseOccurrenceJobId,
} from './job-payload.js';
export { JobStatus, ScheduleStatus } from './job-status.js';
export { type Labels, labelsArg } from './labels.js';
export { MISFIRE_POLICIES, type MisfirePolicy } from './misfire-policy.js';
export {
  DEFAULT_SLOT_RULE,
  earlierSlotRule,
  OVERLAP_POLICIES,
  type OverlapPolicy,
  overlapProblem,
  type ResolvedOverlap,
  resolveOverlap,
  SLOT_MODES,
  type SlotMode,
  type SlotRule,
  slotRuleOf,
} from './overlap-policy.js';
export { type OwedRun, owedMember, parseOwedMember } from './owed-run.js';
export {
  PAUSE_BY_MAX,
  PAUSE_NOTE_MAX,
  type PauseNote,
  parsePauseNote,
  pauseNoteProblem,
} from './pause-note.js';
export {
  counted,
  enqueuedFacts,
  mergeForms,
  patchArgs,
  recordFromHash,
  recordFromJson,
} from './record-form.js';
export {
  DEFAULT_RUN_OPTIONS,
  type EarlierRunOptions,
  JOB_PAYLOADS,
  type JobPayload,
  type OccurrenceRunOptions,
  type ResolvedRunOptions,
  resolveRunOptions,
} from './run-options.js';
export {
  type CoalesceCause,
  type PreviousAttempt,
  parseRecord,
  type RunOutcome,
  type RunRecord,
  type SkipReason,
} from './run-record.js';
export {
  decodeDefinition,
  encodeDefinition,
  peekNameAndQueue,
  timingFingerprint,
} from './schedule-definition.js';
export { parseState, type ScheduleState, StateCode, statusOf } from './schedule-state.js';
export {
  type Claim,
  type ClaimResult,
  type Completion,
  decodeRow,
  type FleetMember,
  type ScheduleErrorInfo,
  type StoredSchedule,
  type UpsertOptions,
  type UpsertResult,
} from './schedule-store-types.js';
export { matchesSelector, parseSelector, type Requirement, type Selector } from './selector.js';
export { showValue } from './show-value.js';
export { formatSpread, parseSpreadMs, spreadOffsetMs } from './spread.js';
