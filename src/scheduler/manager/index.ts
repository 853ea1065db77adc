// The SchedulerManager and its writes, reads and controls: it composes the fire cycle, the outcomes of
// plain Workers and backfill. Nothing else in the scheduler imports it.
export {
  type HandlerDecorator,
  type HistoryAccess,
  type ListQuery,
  type ScheduleDecorator,
  SchedulerManager,
  type SchedulerStats,
} from './scheduler-manager.js';
export { type ExpressLike, setupScheduler } from './setup-scheduler.js';
