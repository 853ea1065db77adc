// The store's public surface: what the scheduler, the worker runtime, the CLI and the dashboard use of
// the Redis contract. Everything bullbeat writes to or reads from Redis is decoded in this folder.

export {
  AUDIT_SOURCES,
  type AuditActor,
  type AuditChange,
  type AuditEntry,
  type AuditOp,
  type AuditSource,
  SYSTEM_ACTOR,
} from './audit-entry.js';
export type { AuditQuery } from './audit-trail.js';
export {
  BACKFILL_LEDGER_TTL_MS,
  BackfillLedger,
  type BackfillVerdict,
} from './backfill-ledger.js';
export {
  type HandOver,
  handOverScheduler,
  pendingInstant,
  type RepeatEntry,
  removeRepeatEntry,
  repeatEntries,
} from './bull-repeat.js';
export {
  type BullmqHandover,
  BullmqHandovers,
  leftToBullmq,
  parseBullmqHandover,
} from './bullmq-handover.js';
export { type ClaimRow, claimReplica, decodeClaimRow, encodeClaimRow } from './claim-row.js';
export { type ClaimInFlight, claimInFlight, lateSchedules } from './claims-in-flight.js';
export { DEFAULT_COMMAND_TIMEOUT_MS, withCommandTimeout } from './command-timeout.js';
export {
  definitionSchema,
  firstProblem,
  scheduleFields,
  scheduleOptionsSchema,
  unknownKey,
} from './definition-schema.js';
export {
  DEFAULT_RUN_OPTIONS,
  JOB_PAYLOADS,
  type JobPayload,
  type OccurrenceJobData,
  type OccurrenceRunOptions,
  occurrenceJobId,
  type ResolvedRunOptions,
  resolveRunOptions,
} from './job-payload.js';
export { JobStatus, ScheduleStatus } from './job-status.js';
export { hashTag, type Keys, keys, laneOf, occurrenceField, type RecordLane } from './keys.js';
export { activeRuns, LeaseStore } from './lease-store.js';
export { MISFIRE_POLICIES } from './misfire-policy.js';
export { OVERLAP_POLICIES, type OverlapPolicy, type SlotRule } from './overlap-policy.js';
export { checkPartitionCount } from './partition-count.js';
export {
  PAUSE_BY_MAX,
  PAUSE_NOTE_MAX,
  type PauseNote,
  PauseNotes,
  parsePauseNote,
  pauseNoteProblem,
} from './pause-note.js';
export { checkQueueOwner, holdQueue, QUEUE_HOLD_MS, queueOwnerKey, releaseQueue } from './queue-owner.js';
export { patchArgs, recordFromHash } from './record-form.js';
export { type RecordRead, readHistories, readRecords } from './record-reads.js';
export {
  bullConnection,
  type ClusterConnection,
  openRedis,
  parseClusterNodes,
  queuePrefixFor,
  type RedisTarget,
  redisTarget,
} from './redis-target.js';
export { redisTime } from './redis-time.js';
export { connectionOfKey, type ReplicaAcksOptions } from './replica-acks.js';
export { countsFrom, type RunCounter, RunHistory, type RunPatch } from './run-history.js';
export {
  type CoalesceCause,
  type PreviousAttempt,
  parseRecord,
  type RunOutcome,
  type RunRecord,
  type SkipReason,
} from './run-record.js';
export { type RunFinish, RunSlots, type RunStart, type RunTarget } from './run-slots.js';
export { announceRuntimeQueues, liveRuntimeQueues, RUNTIME_ANNOUNCE_MS } from './runtime-queues.js';
export { readActivity, type ScheduleActivity } from './schedule-activity.js';
export {
  type CustomTriggerJSON,
  decodeDefinition,
  type ScheduleDefinition,
  type ScheduleSource,
  timingFingerprint,
} from './schedule-definition.js';
export { ScheduleIndex } from './schedule-index.js';
export { countersOf, type ListQuery, withTriggerChecked } from './schedule-listing.js';
export { formatState, parseState, type ScheduleState, StateCode, statusOf } from './schedule-state.js';
export { ScheduleStore } from './schedule-store.js';
export type { Claim, ScheduleErrorInfo, StoredSchedule } from './schedule-store-types.js';
export { deploymentExists, ping, scanKeys } from './server-reads.js';
