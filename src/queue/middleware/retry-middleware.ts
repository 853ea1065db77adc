import type { Middleware, MiddlewareStage, NextHandler, ScheduledJobLike } from '../pipeline.js';
import { sleep, systemClock, type WorkerClock } from '../worker-clock.js';

export interface RetryMiddlewareOptions {
  /** Calls of the wrapped handler in all, the first included. Default: 3 (Sillo's). */
  maxAttempts?: number;
  /** The delay before the first retry; it doubles before each next one. Default: 1000 ms (Sillo's 1 s). */
  baseDelayMs?: number;
  /** Timers. Default: the system clock. */
  clock?: WorkerClock;
}

/**
 * Retries a failed call of the handler in this process, with exponential backoff (1 s, 2 s, ... by
 * default; Sillo's `retry_middleware`). It stops at once, rethrowing, when `ctx.signal` aborts (timeout or
 * shutdown), including while it waits. For retries that survive a crashed worker, prefer the
 * schedule's `attempts`/`backoff`, which are BullMQ's.
 */
export function retryMiddleware(options?: RetryMiddlewareOptions): Middleware;
export function retryMiddleware(handler: NextHandler, job: ScheduledJobLike): MiddlewareStage;
export function retryMiddleware(
  first?: RetryMiddlewareOptions | NextHandler,
  job?: ScheduledJobLike,
): Middleware | MiddlewareStage {
  if (typeof first === 'function') return makeRetry({})(first, job as ScheduledJobLike) as MiddlewareStage;
  return makeRetry(first ?? {});
}

function makeRetry(options: RetryMiddlewareOptions): Middleware {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const baseDelayMs = options.baseDelayMs ?? 1000;
  const clock = options.clock ?? systemClock;
  const retry: Middleware = (handler, job) => async (ctx) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await handler(ctx);
      } catch (error) {
        if (attempt >= maxAttempts || ctx.signal.aborted) throw error;
        const delayMs = baseDelayMs * 2 ** (attempt - 1);
        ctx.logger.warn(
          { scheduleId: job.id, attempt, maxAttempts, delayMs, err: error },
          `retry ${attempt}/${maxAttempts} for ${job.name} in ${delayMs} ms`,
        );
        await sleep(clock, delayMs, ctx.signal);
      }
    }
  };
  return retry;
}
