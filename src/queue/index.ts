export * from './middleware/index.js';
export {
  type OccurrenceJobData,
  type OccurrenceRunOptions,
  occurrenceJobId,
} from './occurrence-job.js';
export {
  composePipeline,
  type Middleware,
  type MiddlewareStage,
  type NextHandler,
  type RunContext,
  type RunHandler,
  type ScheduledJobLike,
} from './pipeline.js';
export { systemClock, type WorkerClock } from './worker-clock.js';
