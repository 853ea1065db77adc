// The SchedulerManager and its writes, reads and controls: it composes the fire cycle, the outcomes of
// plain Workers and backfill. Nothing else in the scheduler imports it.

export type { CalendarDefined, Calendars } from './calendars.js';
export { internalsOf, type ManagerInternals } from './manager-internals.js';
export { createWorker } from './manager-worker.js';
export type { ScheduleManyItem } from './schedule-many.js';
export type { ListPage } from './schedule-reads.js';
export {
  type BulkResult,
  ScheduleSelection,
  type SelectionBackfillResult,
  type SelectionBackfillSchedule,
} from './schedule-selection.js';
export { SchedulerManager } from './scheduler-manager.js';
export type {
  HandlerDecorator,
  HistoryAccess,
  JobFunction,
  ListQuery,
  RunHistoryReader,
  ScheduleDecorator,
  SchedulerStats,
} from './scheduler-manager-types.js';
export { type ExpressLike, setupScheduler } from './setup-scheduler.js';
