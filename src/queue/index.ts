export { createWorker, resolveWorkerTuning, type WorkerHandle } from './create-worker.js';
export { deprecatedTuningWarning, type GatheredTuning, gatherTuning } from './gather-tuning.js';
export * from './middleware/index.js';
export type {
  Middleware,
  MiddlewareStage,
  NextHandler,
  RunContext,
  RunHandler,
  ScheduledJobLike,
} from './pipeline.js';
export type { CancelledResult, PausedOnFailureEvent, SkippedResult } from './run-results.js';
export type { WorkerClock } from './worker-clock.js';
export {
  type CreateWorkerOptions,
  type QueueRateLimit,
  WORKER_TUNING_KEYS,
  type WorkerTuning,
} from './worker-options.js';
