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
