import { describe, expect, it } from 'vitest';
import { rateLimitMiddleware } from '../../../src/queue/middleware/index.js';
import { composePipeline } from '../../../src/queue/pipeline.js';
import { ManualClock, settle } from '../manual-clock.js';
import { runContext } from '../run-context.js';

describe('rateLimitMiddleware', () => {
  it('lets a burst of maxPerSecond through, then one call per 1/rate s', async () => {
    const clock = new ManualClock();
    const limiter = rateLimitMiddleware({ maxPerSecond: 4, clock });
    const job = { id: 'poll', name: 'poll' };
    const starts: number[] = [];
    const runs = [];
    for (let i = 0; i < 7; i++) {
      // a new pipeline per run, as a worker builds one per job: the bucket is still shared
      const run = await composePipeline(() => starts.push(clock.now()), [], [limiter], job);
      runs.push(run(runContext()));
    }
    await settle();
    expect(starts.length).toBe(4);
    await clock.advance(2_000);
    await Promise.all(runs);
    const t0 = starts[0] as number;
    expect(starts.map((t) => t - t0)).toEqual([0, 0, 0, 0, 250, 500, 750]);
  });

  it('keeps one bucket per schedule', async () => {
    const clock = new ManualClock();
    const limiter = rateLimitMiddleware({ maxPerSecond: 1, clock });
    let done = 0;
    const a = await composePipeline(() => done++, [], [limiter], { id: 'a', name: 'a' });
    const b = await composePipeline(() => done++, [], [limiter], { id: 'b', name: 'b' });
    await Promise.all([a(runContext()), b(runContext())]);
    expect(done).toBe(2);
    const third = a(runContext());
    await settle();
    expect(done).toBe(2);
    await clock.advance(1_000);
    await third;
    expect(done).toBe(3);
  });

  it('gives the token back when the wait is aborted', async () => {
    const clock = new ManualClock();
    const limiter = rateLimitMiddleware({ maxPerSecond: 1, clock });
    const job = { id: 'x', name: 'x' };
    let done = 0;
    const run = await composePipeline(() => done++, [], [limiter], job);
    await run(runContext());
    const controller = new AbortController();
    const aborted = run(runContext({ signal: controller.signal })).catch((e: unknown) => e);
    controller.abort(new Error('stop'));
    expect(((await aborted) as Error).message).toBe('stop');
    await clock.advance(1_000);
    await run(runContext()); // one token refilled, not owed to the aborted call
    expect(done).toBe(2);
  });

  it('works bare (10 per second)', async () => {
    let done = 0;
    const run = await composePipeline(() => done++, [], [rateLimitMiddleware], { id: 'bare', name: 'bare' });
    await Promise.all(Array.from({ length: 10 }, () => run(runContext())));
    expect(done).toBe(10);
  });
});
