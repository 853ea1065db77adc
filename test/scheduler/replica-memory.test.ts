import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { DateTrigger } from '../../src/triggers/date-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, silent, testEnv } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().heapUsed;
}

/** A long-running replica must not keep anything per schedule that has completed (Sillo's memory pitfall). */
describe('replica memory', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  it('25,000 one-shots pushed through a replica: its heap returns to its starting level', async () => {
    env = testEnv('memory');
    // 25,000: more than the definitions cache holds (20,000), and a leak of what the cache fix removed
    // (~870 B a one-shot: 43.5 MB over 50,000) is ~21 MB here, twice the bound; the heap moves 2-4 MB
    const N = 25_000;
    const replica = env.manager({ claimBatch: 1000 });
    replica.schedule({ name: 'tick' }, new IntervalTrigger(0.5), { id: 'steady' });
    await replica.start();
    await waitUntil(() => (internalsOf(replica).loopStats?.enqueued ?? 0) >= 2, 5000);
    const before = await settledHeap();

    // Another process's worth of definitions: a client creates the one-shots, then goes away.
    // (not env.manager(): the test's list of managers would keep it, and its N handles, alive)
    let client: SchedulerManager | undefined = new SchedulerManager({
      prefix: env.prefix,
      defaultQueue: env.queue,
      connection: REDIS_URL,
      logger: silent,
      role: 'client',
    });
    const start = (await redisNow(env.redis)) + 1000;
    for (let i = 0; i < N; i += 2000) {
      const saved: Promise<void>[] = [];
      for (let j = i; j < Math.min(N, i + 2000); j++) {
        const job = client.schedule({ name: 'tick' }, new DateTrigger(start + (j % 3000)), {
          id: `once-${j}`,
        });
        saved.push(job.saved);
      }
      await Promise.all(saved);
    }
    await client.close();
    client = undefined;

    await waitUntil(() => (internalsOf(replica).loopStats?.enqueued ?? 0) >= N + 2, 120_000, { stepMs: 100 });
    // An add counts as enqueued before its batch's completion step has run: on a loaded Redis whole
    // batches of items are still held then. What a leak keeps stays at every idle moment; what is in
    // flight does not, so the heap is read at idle moments (nothing pending or in flight) and the
    // smallest growth counts.
    let grewMb = Number.POSITIVE_INFINITY;
    for (let reading = 0; reading < 10 && grewMb >= 10; reading++) {
      await waitUntil(
        () => {
          const f = internalsOf(replica).loopFootprint!;
          return f.inFlight === 0 && f.pending === 0;
        },
        30_000,
        { stepMs: 5, what: 'the replica idle' },
      );
      grewMb = Math.min(grewMb, ((await settledHeap()) - before) / 1024 / 1024);
    }
    console.log(`replica memory: heap grew ${grewMb.toFixed(1)} MB over ${N} one-shots`);
    expect(internalsOf(replica).loopFootprint!.cachedDefinitions).toBeLessThan(100);
    expect(grewMb, `heap grew by ${grewMb.toFixed(1)} MB`).toBeLessThan(10);
  }, 180_000);
});
