// A run's ctx in the worker runtime: its fields in order, `signal` and `logger` made when read, and a
// middleware's `{ ...ctx, signal }` copying every field (the accessors' values included).
import type { Job } from 'bullmq';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { lazyChild } from '../../src/queue/lazy-logger.js';
import { runContext } from '../../src/queue/run-ctx.js';
import { RunStop } from '../../src/queue/run-stop.js';

const job = { id: 'j1' } as Job;
const fields = { scheduleId: 's1', name: 'tick', fireAt: 1_000, attempt: 2, kind: 'scheduled' as const };

function make() {
  const parent = pino({ level: 'silent' });
  const childCalls = vi.spyOn(parent, 'child');
  const stop = new RunStop();
  const ctx = runContext(fields, stop, lazyChild(parent, { scheduleId: 's1' }), 7, job);
  return { ctx, stop, childCalls };
}

describe('runContext', () => {
  it('has the fields of a RunContext, in order, and nothing else enumerable', () => {
    const { ctx } = make();
    expect(Object.keys(ctx)).toEqual([
      'scheduleId',
      'name',
      'fireAt',
      'attempt',
      'kind',
      'signal',
      'logger',
      'fencingToken',
      'job',
    ]);
    expect(ctx).toMatchObject({ ...fields, fencingToken: 7 });
    expect(ctx.job).toBe(job);
    expect(Object.getPrototypeOf(ctx)).toBe(Object.prototype);
  });

  it('makes the signal and the logger only when read; the signal is the run stop’s', () => {
    const { ctx, stop, childCalls } = make();
    expect(childCalls).not.toHaveBeenCalled();
    const reason = new Error('stopped');
    stop.stop(reason);
    expect(ctx.signal.reason).toBe(reason);
    expect(ctx.signal).toBe(stop.signal);
    const logger = ctx.logger;
    expect(childCalls).toHaveBeenCalledTimes(1);
    expect(ctx.logger).toBe(logger);
    expect(logger.bindings()).toMatchObject({ scheduleId: 's1' });
  });

  it("a spread copies the accessors' values; a middleware may set the logger", () => {
    const { ctx } = make();
    const other = new AbortController().signal;
    const copy = { ...ctx, signal: other };
    expect(copy.signal).toBe(other);
    expect(copy.logger).toBe(ctx.logger);
    expect(copy).toMatchObject({ ...fields, fencingToken: 7 });
    const mine = pino({ level: 'silent' });
    ctx.logger = mine;
    expect(ctx.logger).toBe(mine);
  });

  it('each ctx reads its own run', () => {
    const a = make();
    const b = make();
    a.stop.stop('a');
    expect(a.ctx.signal.aborted).toBe(true);
    expect(b.ctx.signal.aborted).toBe(false);
  });
});
