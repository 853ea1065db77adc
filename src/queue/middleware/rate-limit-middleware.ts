import type { Middleware, MiddlewareStage, NextHandler, ScheduledJobLike } from '../pipeline.js';
import { sleep, systemClock, type WorkerClock } from '../worker-clock.js';

export interface RateLimitMiddlewareOptions {
  /** Calls per second allowed per schedule in this process; also the burst size. Default: 10 (Sillo's). */
  maxPerSecond?: number;
  /** Time source. Default: the system clock. */
  clock?: WorkerClock;
}

interface Bucket {
  tokens: number;
  refilledAt: number;
}

/**
 * Limits how often a schedule's handler is called in this process: a token bucket per schedule,
 * shared by every run of it here (one middleware instance, one bucket per schedule id). A call that
 * finds no token waits for its turn; waiters reserve tokens in arrival order, so concurrent runs never
 * exceed the rate. The wait aborts with `ctx.signal`. For a limit across every worker, use the queue
 * limiter. (Sillo's `rate_limit_middleware`.)
 */
export function rateLimitMiddleware(options?: RateLimitMiddlewareOptions): Middleware;
export function rateLimitMiddleware(handler: NextHandler, job: ScheduledJobLike): MiddlewareStage;
export function rateLimitMiddleware(
  first?: RateLimitMiddlewareOptions | NextHandler,
  job?: ScheduledJobLike,
): Middleware | MiddlewareStage {
  if (typeof first === 'function') {
    defaultLimiter ??= makeRateLimit({});
    return defaultLimiter(first, job as ScheduledJobLike) as MiddlewareStage;
  }
  return makeRateLimit(first ?? {});
}

/** The instance behind the bare `rateLimitMiddleware`, created on first use. */
let defaultLimiter: Middleware | undefined;

function makeRateLimit(options: RateLimitMiddlewareOptions): Middleware {
  const rate = options.maxPerSecond ?? 10;
  const clock = options.clock ?? systemClock;
  const buckets = new Map<string, Bucket>();
  const rateLimit: Middleware = (handler, job) => async (ctx) => {
    let bucket = buckets.get(job.id);
    if (!bucket) {
      bucket = { tokens: rate, refilledAt: clock.now() };
      buckets.set(job.id, bucket);
    }
    const now = clock.now();
    bucket.tokens = Math.min(rate, bucket.tokens + ((now - bucket.refilledAt) / 1000) * rate);
    bucket.refilledAt = now;
    bucket.tokens -= 1;
    if (bucket.tokens < 0) {
      const waitMs = (-bucket.tokens / rate) * 1000;
      try {
        await sleep(clock, waitMs, ctx.signal);
      } catch (error) {
        bucket.tokens += 1; // give the reserved token back
        throw error;
      }
    }
    return handler(ctx);
  };
  return rateLimit;
}
