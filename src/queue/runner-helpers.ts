import type { Job } from 'bullmq';
import type { Logger } from 'pino';

// Small pieces of the occurrence runner that need none of its state.

/** The attempts a job may make (BullMQ's `attempts` option; unset or 0 means one). */
export function attemptsAllowed(job: Job): number {
  return Math.max(1, job.opts.attempts ?? 1);
}

/** How many of the earlier attempts were lost with their worker (they do not use up `attempts`). */
export function lostAttempts(previous: readonly { outcome: string }[]): number {
  return previous.filter((a) => a.outcome === 'lost').length;
}

/** The handler's result as BullMQ's return value, or undefined when it does not survive JSON. */
export function serializable(result: unknown, logger: Logger): unknown {
  try {
    JSON.stringify(result);
    return result;
  } catch (err) {
    logger.warn({ err }, 'the handler result is not JSON-serializable; the job keeps no return value');
    return undefined;
  }
}

/**
 * BullMQ failed this job without handing it to the processor: it stalled more often than its
 * `maxStalledCount` (a deferred failure, applied when a worker next takes it) or started more than
 * `maxStartedAttempts` times. The processor never saw it, so its record is not written yet.
 */
export function failedBeforeProcessing(job: Job, error: Error): boolean {
  return (
    error.name === 'UnrecoverableError' &&
    ((job.deferredFailure !== undefined && error.message === job.deferredFailure) ||
      error.message === 'job started more than allowable limit')
  );
}
