// The door of src/store/reads/: what the store's other rooms use of it.

export { type AuditQuery, AuditTrail } from './audit-trail.js';
export { type BulkChange, type BulkOp, BulkTrail } from './bulk-trail.js';
export { type ClaimInFlight, claimInFlight, lateSchedules, nextOccurrences } from './claims-in-flight.js';
export { dueEarlier } from './due-earlier.js';
export { expectingDefinitions } from './expect-index.js';
export {
  enqueuedRecords,
  readFinishedJobs,
  readJobFields,
  scanScheduleQueues,
  scheduleIdsOnQueue,
} from './foreign-reads.js';
export { type IndexedGroup, indexedGroups } from './group-index.js';
export { selectIds } from './label-index.js';
export { activeRuns, groupOccupancy, LeaseStore, runLease } from './lease-store.js';
export {
  COUNT_BUDGET,
  type IndexedStatus,
  indexedQueues,
  indexedStatusCounts,
  type ListFilter,
  type ListIndexPage,
  listIndexPage,
  STEP_MAX,
} from './list-index.js';
export { checkListIndexes, type NamePage, namePage, namePageAt, repairNames } from './name-index.js';
export { type RecordRead, readHistories, readRecords } from './record-reads.js';
export { countsFrom, type RunCounter, RunHistory, type RunPatch } from './run-history.js';
export { readActivity } from './schedule-activity.js';
export { ScheduleIndex } from './schedule-index.js';
export { countersOf, type ListQuery, withTriggerChecked } from './schedule-listing.js';
export { byPartition, readSchedule, readSchedules, readStates } from './schedule-rows.js';
export { SCAN_START, type ScanStep, scanSchedules, scheduleCount } from './schedule-scan.js';
export { deploymentExists, ping, scanKeys } from './server-reads.js';
export { storedQueueNames } from './stored-queues.js';
