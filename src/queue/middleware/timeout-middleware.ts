import { TimeoutError } from '../../errors/timeout-error.js';
import type {
  Middleware,
  MiddlewareStage,
  NextHandler,
  RunContext,
  RunHandler,
  ScheduledJobLike,
} from '../pipeline.js';
import { systemClock, type WorkerClock } from '../worker-clock.js';

export interface TimeoutMiddlewareOptions {
  /** The deadline of each call of the wrapped handler, in seconds (Sillo's unit). Default: 30. */
  seconds?: number;
  /** Timers. Default: the system clock. */
  clock?: WorkerClock;
}

/**
 * Gives each call of the handler a deadline: the wrapped handler gets a `ctx.signal` that aborts at
 * the deadline (and when the outer signal aborts), and the call rejects with a `TimeoutError` naming
 * the schedule and the limit, whether or not the handler heeds its signal. (Sillo's `timeout_middleware`.)
 *
 * Use it as a middleware (`middleware: [timeoutMiddleware]`, 30 s) or configured
 * (`middleware: [timeoutMiddleware({ seconds: 5 })]`).
 */
export function timeoutMiddleware(options?: TimeoutMiddlewareOptions): Middleware;
export function timeoutMiddleware(handler: NextHandler, job: ScheduledJobLike): MiddlewareStage;
export function timeoutMiddleware(
  first?: TimeoutMiddlewareOptions | NextHandler,
  job?: ScheduledJobLike,
): Middleware | MiddlewareStage {
  if (typeof first === 'function') return makeTimeout({})(first, job as ScheduledJobLike) as MiddlewareStage;
  return makeTimeout(first ?? {});
}

function makeTimeout(options: TimeoutMiddlewareOptions): Middleware {
  const ms = (options.seconds ?? 30) * 1000;
  const clock = options.clock ?? systemClock;
  const timeout: Middleware = (handler, job) => (ctx) => withDeadline(handler, ctx, ms, clock, job.id);
  return timeout;
}

/**
 * Run `handler` with a signal that aborts after `ms`, rejecting with a `TimeoutError` then. Shared by
 * `timeoutMiddleware` and the worker's `timeoutMs`.
 */
export function withDeadline(
  handler: RunHandler,
  ctx: RunContext,
  ms: number,
  clock: WorkerClock,
  scheduleId: string,
): Promise<unknown> {
  const controller = new AbortController();
  const outer = ctx.signal;
  const onOuterAbort = () => controller.abort(outer.reason);
  if (outer.aborted) controller.abort(outer.reason);
  else outer.addEventListener('abort', onOuterAbort, { once: true });

  let timer: unknown;
  const deadline = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => {
      const error = new TimeoutError(scheduleId, ms);
      controller.abort(error);
      reject(error);
    }, ms);
  });
  const run = handler({ ...ctx, signal: controller.signal });
  return Promise.race([run, deadline]).finally(() => {
    clock.clearTimeout(timer);
    outer.removeEventListener('abort', onOuterAbort);
    // The losing promise must not surface as an unhandled rejection.
    run.catch(() => {});
    deadline.catch(() => {});
  });
}
