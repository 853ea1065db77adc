import { describe, expect, it } from 'vitest';
import { retryMiddleware, timeoutMiddleware } from '../../../src/queue/middleware/index.js';
import { composePipeline } from '../../../src/queue/pipeline.js';
import { ManualClock } from '../manual-clock.js';
import { runContext } from '../run-context.js';

const job = { id: 'sync', name: 'sync' };

function flaky(failures: number, clock: ManualClock, calls: number[]) {
  return () => {
    calls.push(clock.now());
    if (calls.length <= failures) throw new Error(`failure ${calls.length}`);
    return 'ok';
  };
}

describe('retryMiddleware', () => {
  it('retries with exponential backoff (Sillo: 3 attempts, 1 s then 2 s)', async () => {
    const clock = new ManualClock();
    const calls: number[] = [];
    const run = await composePipeline(flaky(2, clock, calls), [], [retryMiddleware({ clock })], job);
    const outcome = run(runContext());
    await clock.advance(10_000);
    await expect(outcome).resolves.toBe('ok');
    const start = calls[0] as number;
    expect(calls.map((t) => t - start)).toEqual([0, 1000, 3000]);
  });

  it('rethrows the last error after maxAttempts', async () => {
    const clock = new ManualClock();
    const calls: number[] = [];
    const run = await composePipeline(
      flaky(5, clock, calls),
      [],
      [retryMiddleware({ maxAttempts: 2, baseDelayMs: 100, clock })],
      job,
    );
    const outcome = run(runContext()).catch((e: unknown) => e);
    await clock.advance(1_000);
    expect(((await outcome) as Error).message).toBe('failure 2');
    expect(calls.length).toBe(2);
  });

  it('stops waiting and rethrows when the signal aborts during the backoff', async () => {
    const clock = new ManualClock();
    const calls: number[] = [];
    const controller = new AbortController();
    const run = await composePipeline(flaky(5, clock, calls), [], [retryMiddleware({ clock })], job);
    const outcome = run(runContext({ signal: controller.signal })).catch((e: unknown) => e);
    await clock.advance(500);
    controller.abort(new Error('shutdown'));
    expect(((await outcome) as Error).message).toBe('shutdown');
    await clock.advance(10_000);
    expect(calls.length).toBe(1);
  });

  it('retries each timed-out attempt when listed outside timeoutMiddleware (Sillo 15.5)', async () => {
    const clock = new ManualClock();
    let calls = 0;
    const run = await composePipeline(
      () => {
        calls++;
        return calls < 3 ? new Promise(() => {}) : 'ok';
      },
      [],
      [retryMiddleware({ clock, baseDelayMs: 10 }), timeoutMiddleware({ seconds: 1, clock })],
      job,
    );
    const outcome = run(runContext());
    await clock.advance(5_000);
    await expect(outcome).resolves.toBe('ok');
    expect(calls).toBe(3);
  });

  it('works bare', async () => {
    const run = await composePipeline(() => 7, [], [retryMiddleware], job);
    await expect(run(runContext())).resolves.toBe(7);
  });
});
