export { createWorker, resolveWorkerOptions, type WorkerHandle } from './create-worker.js';
export {
  createWorkerFromModule,
  loadJobsModule,
  type ModuleWorkerHandle,
} from './create-worker-from-module.js';
export { handledQueues } from './handled-queues.js';
export * from './middleware/index.js';
export {
  composePipeline,
  type Middleware,
  type MiddlewareStage,
  type NextHandler,
  type RunContext,
  type RunHandler,
  type ScheduledJobLike,
} from './pipeline.js';
export type { CancelledResult, PausedOnFailureEvent, SkippedResult } from './run-results.js';
export { sleep, systemClock, type WorkerClock } from './worker-clock.js';
export type { CreateWorkerOptions, QueueRateLimit, ResolvedWorkerOptions } from './worker-options.js';
export type { HandlerEntry, WorkerScheduler } from './worker-scheduler.js';
