import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { realLogger } from './lazy-logger.js';
import type { RunContext } from './pipeline.js';
import type { RunStop } from './run-stop.js';

/** Where a run's ctx keeps what its accessors read: a symbol, not enumerable (a spread leaves it). */
const STATE = Symbol('bullbeat.runContext');

interface CtxState {
  stop: RunStop;
  logger: Logger;
}

type WithState = { [STATE]: CtxState };

/** `ctx.signal`: made when first read (see `RunStop`). */
const SIGNAL: PropertyDescriptor = {
  get(this: WithState) {
    return this[STATE].stop.signal;
  },
  enumerable: true,
  configurable: true,
};

/** `ctx.logger`: the run's child logger, made when first read (see `lazyChild`); a middleware may set another. */
const LOGGER: PropertyDescriptor = {
  get(this: WithState) {
    const state = this[STATE];
    state.logger = realLogger(state.logger);
    return state.logger;
  },
  set(this: WithState, value: Logger) {
    this[STATE].logger = value;
  },
  enumerable: true,
  configurable: true,
};

/**
 * The ctx of one run in the worker runtime: a plain object whose `signal` and `logger` are made only
 * when read, as own enumerable accessors (a middleware's `{ ...ctx, signal }` copies them).
 *
 * Why shared accessors: an object literal with getters that close over the run gets a map of its own
 * in V8 (its accessor pair differs from every other ctx's), ~1 µs per run to make; these are the
 * same two functions for every ctx, reading the run from a symbol-keyed field.
 */
export function runContext(
  fields: { scheduleId: string; name: string; fireAt: number; attempt: number; kind: RunContext['kind'] },
  stop: RunStop,
  logger: Logger,
  fencingToken: number,
  job: Job,
): RunContext {
  const ctx = {
    scheduleId: fields.scheduleId,
    name: fields.name,
    fireAt: fields.fireAt,
    attempt: fields.attempt,
    kind: fields.kind,
  } as RunContext;
  Object.defineProperty(ctx, 'signal', SIGNAL);
  Object.defineProperty(ctx, 'logger', LOGGER);
  ctx.fencingToken = fencingToken;
  ctx.job = job;
  Object.defineProperty(ctx, STATE, { value: { stop, logger } satisfies CtxState });
  return ctx;
}
