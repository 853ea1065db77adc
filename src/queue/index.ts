export { createWorker, type WorkerHandle } from './create-worker.js';
export * from './middleware/index.js';
export type { Middleware, NextHandler, RunContext, RunHandler } from './pipeline.js';
export type { CancelledResult, PausedOnFailureEvent, SkippedResult } from './run-results.js';
export type { CreateWorkerOptions, QueueRateLimit } from './worker-options.js';
