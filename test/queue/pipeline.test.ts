import { describe, expect, it } from 'vitest';
import { composePipeline, type Middleware, type RunContext } from '../../src/queue/pipeline.js';
import { runContext } from './run-context.js';

const job = { id: 'report', name: 'report' };

describe('composePipeline', () => {
  it('calls the function with ...args, ctx', async () => {
    const calls: unknown[][] = [];
    const run = await composePipeline((...a) => calls.push(a), ['a', 2], [], job);
    const ctx = runContext();
    await run(ctx);
    expect(calls).toEqual([['a', 2, ctx]]);
  });

  it('applies middleware first listed outermost, sync and async factories alike', async () => {
    const order: string[] = [];
    const tag =
      (name: string, async = false): Middleware =>
      (handler) => {
        const stage = async () => {
          order.push(`${name}>`);
          const result = await handler();
          order.push(`<${name}`);
          return result;
        };
        return async ? Promise.resolve(stage) : stage;
      };
    const run = await composePipeline(() => order.push('fn'), [], [tag('a'), tag('b', true), tag('c')], job);
    await run(runContext());
    expect(order).toEqual(['a>', 'b>', 'c>', 'fn', '<c', '<b', '<a']);
  });

  it('hands the outer ctx on when a middleware calls handler() without one', async () => {
    let seen: RunContext | undefined;
    const bare: Middleware = (handler) => () => handler();
    const run = await composePipeline((ctx) => (seen = ctx as RunContext), [], [bare, bare], job);
    const ctx = runContext({ fireAt: 42 });
    await run(ctx);
    expect(seen).toBe(ctx);
  });

  it('hands on a ctx changed by a middleware to the stages below it', async () => {
    let seen: RunContext | undefined;
    const change: Middleware = (handler) => (ctx) => handler({ ...ctx, attempt: 9 });
    const bare: Middleware = (handler) => () => handler();
    const run = await composePipeline((ctx) => (seen = ctx as RunContext), [], [change, bare], job);
    await run(runContext());
    expect(seen?.attempt).toBe(9);
  });

  it('keeps concurrent runs of one pipeline apart', async () => {
    const seen: number[] = [];
    const bare: Middleware = (handler) => async () => {
      await new Promise((r) => setTimeout(r, 5));
      return handler();
    };
    const run = await composePipeline((ctx) => seen.push((ctx as RunContext).fireAt), [], [bare], job);
    await Promise.all([run(runContext({ fireAt: 1 })), run(runContext({ fireAt: 2 }))]);
    expect(seen.sort()).toEqual([1, 2]);
  });

  it('passes the job to each factory and propagates errors and results', async () => {
    const jobs: unknown[] = [];
    const spy: Middleware = (handler, j) => {
      jobs.push(j);
      return handler;
    };
    const ok = await composePipeline(() => 'done', [], [spy], job);
    await expect(ok(runContext())).resolves.toBe('done');
    const bad = await composePipeline(
      () => {
        throw new Error('boom');
      },
      [],
      [spy],
      job,
    );
    await expect(bad(runContext())).rejects.toThrow('boom');
    expect(jobs).toEqual([job, job]);
  });
});
