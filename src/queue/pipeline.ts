import { AsyncLocalStorage } from 'node:async_hooks';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { middlewareName, traceStage } from '../tracing/stage-tracing.js';

/** What a handler and every middleware receive for one run of a schedule. */
export interface RunContext {
  scheduleId: string;
  /** The schedule's name: the BullMQ job name and the handler's name. */
  name: string;
  /** The intended fire time (epoch ms); for a manual run, when it was asked for. */
  fireAt: number;
  /**
   * 1 on the first attempt, 2 on the first retry, ... (BullMQ's attempts, not retryMiddleware's),
   * counting an attempt lost with its worker (killed mid-run) as one.
   */
  attempt: number;
  kind: 'scheduled' | 'manual' | 'catch-up' | 'backfill';
  /** Aborts when the run times out or the worker shuts down past its grace period. */
  signal: AbortSignal;
  logger: Logger;
  /**
   * This run's fencing token: it increases with every run started of the schedule, cluster-wide. Pass
   * it to your own storage to refuse a write from an older run (one that stalled past its lease while
   * a newer run went ahead). Absent when the handler runs in-process (`ScheduledJob.run()`).
   */
  fencingToken?: number;
  /** The BullMQ job; absent when the handler runs in-process (`ScheduledJob.run()`). */
  job?: Job;
}

/**
 * The ctx of a run started by hand in this process (`ScheduledJob.run()`, a named handler's `run()`):
 * fired now, first attempt, never aborted, no job; `ctx` overrides any of it.
 */
export function inProcessRunContext(
  scheduleId: string,
  name: string,
  logger: Logger,
  ctx: Partial<RunContext> = {},
): RunContext {
  return {
    scheduleId,
    name,
    fireAt: Date.now(),
    attempt: 1,
    kind: 'manual',
    signal: new AbortController().signal,
    logger,
    ...ctx,
  };
}

/** The composed pipeline of one schedule: run it with the ctx of one run. */
export type RunHandler = (ctx: RunContext) => Promise<unknown>;

/**
 * The next stage, as a middleware receives it. Called with no ctx, it runs with the ctx that the
 * calling stage received (Sillo's `await handler()`); a `NextHandler` is also a `RunHandler`.
 */
export type NextHandler = (ctx?: RunContext) => Promise<unknown>;

/** What a middleware returns: a stage, sync or async, that may ignore its ctx. */
export type MiddlewareStage = (ctx: RunContext) => unknown;

/**
 * Sillo's middleware factory: `(handler, job) => handler`, sync or async. The first listed is the
 * outermost. The returned handler may be sync and may call `handler()` with no ctx: the ctx it was
 * called with passes on. It may also call `handler({ ...ctx, signal })` to hand a changed ctx down.
 */
export type Middleware = (
  handler: NextHandler,
  job: ScheduledJobLike,
) => MiddlewareStage | Promise<MiddlewareStage>;

/** What middleware may read of the schedule it wraps. */
export interface ScheduledJobLike {
  id: string;
  name: string;
}

const current = new AsyncLocalStorage<RunContext>();

/**
 * Build the handler that runs `fn(...args, ctx)` under `middleware`, the first listed outermost
 * (Sillo applies them in reverse). Each stage is wrapped so that a middleware calling `handler()`
 * without a ctx hands on the ctx its own stage received, and so that sync stages become async.
 */
export async function composePipeline(
  fn: (...args: unknown[]) => unknown,
  args: readonly unknown[],
  middleware: readonly Middleware[],
  job: ScheduledJobLike,
): Promise<RunHandler> {
  // Without middleware nothing calls a stage without its ctx: no AsyncLocalStorage (in Node 20 its
  // first `run` turns promise hooks on for the whole process, a cost every promise pays from then on).
  // A traced run (see src/tracing) wraps each stage in a span; an untraced one gets the stages as they are.
  if (middleware.length === 0) return bareHandler(fn, args, job);
  const handlerSpan = `handler ${job.name}`;
  let handler = stage(traceStage(async (ctx: RunContext) => fn(...args, ctx), handlerSpan));
  for (let i = middleware.length - 1; i >= 0; i--) {
    const factory = middleware[i] as Middleware;
    handler = stage(traceStage(await factory(handler, job), `middleware ${middlewareName(factory, i)}`));
  }
  return handler;
}

/**
 * `composePipeline` of a handler without middleware, at once: the worker runtime composes a pipeline
 * per run, and one without middleware needs no wait for a factory.
 */
export function bareHandler(
  fn: (...args: unknown[]) => unknown,
  args: readonly unknown[],
  job: ScheduledJobLike,
): RunHandler {
  return traceStage(bare(fn, args), `handler ${job.name}`) as NextHandler;
}

/** The handler of a schedule without middleware: `fn(...args, ctx)`, always async. */
function bare(fn: (...args: unknown[]) => unknown, args: readonly unknown[]): NextHandler {
  return async (ctx?: RunContext) => {
    if (!ctx) throw new TypeError('a pipeline stage was called without a RunContext');
    return fn(...args, ctx);
  };
}

function stage(inner: MiddlewareStage): NextHandler {
  return (ctx?: RunContext) => {
    const resolved = ctx ?? current.getStore();
    if (!resolved) {
      return Promise.reject(new TypeError('a pipeline stage was called without a RunContext'));
    }
    return current.run(resolved, async () => inner(resolved));
  };
}
