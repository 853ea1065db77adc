import { describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../src/errors/index.js';
import { timeoutMiddleware } from '../../../src/queue/middleware/index.js';
import { composePipeline, type RunContext } from '../../../src/queue/pipeline.js';
import { ManualClock } from '../manual-clock.js';
import { runContext } from '../run-context.js';

const job = { id: 'nightly', name: 'nightly' };

describe('timeoutMiddleware', () => {
  it('aborts the signal and rejects with a TimeoutError naming the schedule and the limit', async () => {
    const clock = new ManualClock();
    let signal: AbortSignal | undefined;
    const run = await composePipeline(
      (ctx) => {
        signal = (ctx as RunContext).signal;
        return new Promise(() => {}); // never settles, ignores its signal
      },
      [],
      [timeoutMiddleware({ seconds: 5, clock })],
      job,
    );
    const outcome = run(runContext()).catch((e: unknown) => e);
    await clock.advance(4_999);
    expect(signal?.aborted).toBe(false);
    await clock.advance(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toBe('schedule "nightly" timed out after 5000 ms');
    expect((error as TimeoutError).timeoutMs).toBe(5000);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(error);
  });

  it('lets a handler that finishes in time through and clears its timer', async () => {
    const clock = new ManualClock();
    const run = await composePipeline(() => 'ok', [], [timeoutMiddleware({ seconds: 5, clock })], job);
    await expect(run(runContext())).resolves.toBe('ok');
    expect(clock.pending).toBe(0);
  });

  it('works bare, with Sillo default of 30 s', async () => {
    const run = await composePipeline(() => 1, [], [timeoutMiddleware], job);
    await expect(run(runContext())).resolves.toBe(1);
  });

  it('aborts the inner signal when the outer one aborts', async () => {
    const clock = new ManualClock();
    const outer = new AbortController();
    let inner: AbortSignal | undefined;
    const run = await composePipeline(
      (ctx) =>
        new Promise((_, reject) => {
          inner = (ctx as RunContext).signal;
          inner.addEventListener('abort', () => reject(inner?.reason));
        }),
      [],
      [timeoutMiddleware({ seconds: 5, clock })],
      job,
    );
    const outcome = run(runContext({ signal: outer.signal })).catch((e: unknown) => e);
    await clock.advance(10);
    outer.abort(new Error('shutdown'));
    expect(((await outcome) as Error).message).toBe('shutdown');
    expect(inner?.aborted).toBe(true);
  });
});
