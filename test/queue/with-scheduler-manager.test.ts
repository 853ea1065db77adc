// The worker runtime under the real SchedulerManager: the scheduler fires, the worker runs.
import { describe, expect, it } from 'vitest';
import { timeoutMiddleware } from '../../src/queue/middleware/index.js';
import type { RunContext } from '../../src/queue/pipeline.js';
import { waitUntil } from '../wait-until.js';
import { useManagerBed } from './manager-bed.js';

const managerBed = useManagerBed();

describe('createWorker with a SchedulerManager', () => {
  it('runs what the scheduler fires, with its args and middleware, and records each run', async () => {
    const { bed, scheduler, start } = managerBed();
    const runs: { who: string; fireAt: number; signal: boolean }[] = [];
    scheduler.every(0.2, { id: 'tick', args: ['ada'], middleware: [timeoutMiddleware({ seconds: 5 })] })(
      async function tick(who: string, ctx: RunContext) {
        runs.push({ who, fireAt: ctx.fireAt, signal: ctx.signal instanceof AbortSignal });
      },
    );
    const failures: unknown[] = [];
    scheduler.on('failed', (e) => failures.push(e));
    const handle = await start();
    expect(handle.queues).toContain(bed.queueName);
    await waitUntil(() => runs.length >= 3, 20_000, { what: 'three runs' });
    expect(runs[0]).toMatchObject({ who: 'ada', signal: true });
    const records = await waitUntil(async () => {
      const list = await scheduler.history.list('tick');
      return list.filter((r) => r.outcome === 'succeeded').length >= 3 ? list : undefined;
    }, 15_000);
    const succeeded = records.filter((r) => r.outcome === 'succeeded');
    for (const r of succeeded) {
      expect(r.enqueuedAt).toBeDefined(); // written by the scheduler
      expect(r.startedAt).toBeGreaterThanOrEqual(r.enqueuedAt as number); // by the worker
      expect(r.attempts).toBe(1);
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('a record never says its run started before it was enqueued, however late the completion comes', async () => {
    const { scheduler, start } = managerBed();
    // one latch per occurrence, opened when its handler runs: the worker took its job and wrote `started`
    const latches = new Map<number, { opened: Promise<void>; open: () => void }>();
    const latch = (fireAt: number) => {
      let l = latches.get(fireAt);
      if (!l) {
        let open = () => {};
        const opened = new Promise<void>((resolve) => {
          open = resolve;
        });
        l = { opened, open };
        latches.set(fireAt, l);
      }
      return l;
    };
    scheduler.every(0.2, { id: 'quick' })(async function quick(ctx: RunContext) {
      latch(ctx.fireAt).open();
    });
    // The completion (which writes the `enqueued` record) comes after a worker ran the job (at most
    // 300 ms: at the end the worker closes first, and the manager's stop waits for this hook), and 20 ms
    // later: a record stamped with the completion's own time (ms) would start before it.
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    scheduler.hooks = {
      afterEnqueue: async (claims) => {
        await Promise.race([Promise.all(claims.map((c) => latch(c.fireAt).opened)), sleep(300)]);
        await sleep(20);
      },
    };
    await start();
    const records = await waitUntil(
      async () => {
        const list = await scheduler.history.list('quick');
        const done = list.filter((r) => r.outcome === 'succeeded' && r.enqueuedAt !== undefined);
        return done.length >= 3 ? done : undefined;
      },
      20_000,
      { what: 'three runs recorded by both sides' },
    );
    for (const r of records) {
      expect(r.startedAt, JSON.stringify(r)).toBeGreaterThanOrEqual(r.enqueuedAt as number);
      expect(r.finishedAt, JSON.stringify(r)).toBeGreaterThanOrEqual(r.startedAt as number);
    }
  }, 60_000);

  it('emits failed on the scheduler for a run that fails for good', async () => {
    const { scheduler, start } = managerBed();
    scheduler.every(3600, { id: 'broken' })(async function broken() {
      throw new Error('kaput');
    });
    const failures: { scheduleId?: string; error: Error }[] = [];
    scheduler.on('failed', (e) => failures.push(e));
    await start();
    await scheduler.triggerNow('broken');
    await waitUntil(() => failures.length > 0, 20_000, { what: 'the failed event' });
    expect(failures[0]).toMatchObject({ scheduleId: 'broken' });
    expect(failures[0]?.error.message).toBe('kaput');
    const [record] = await scheduler.history.list('broken');
    expect(record).toMatchObject({ kind: 'manual', outcome: 'failed', error: 'kaput' });
  }, 60_000);
});
