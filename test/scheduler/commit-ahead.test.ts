import { type Job, Queue, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../src/queue/create-worker.js';
import type { RunContext } from '../../src/queue/pipeline.js';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import type { Claim } from '../../src/store/forms/schedule-store-types.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, silent, testEnv } from './helpers.js';

type Ran = { scheduleId: string; fireAt: number; args: unknown[]; startedAt: number };

/**
 * Occurrences claimed ahead are committed to BullMQ as delayed jobs due at their fire time; pause,
 * remove, update and resume reach such a staged job, whichever consumer runs the queue.
 */
describe.each(['plain', 'runtime'] as const)('commit ahead (%s consumer)', (consumer) => {
  let env: ReturnType<typeof testEnv>;
  let closeConsumer: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await closeConsumer?.();
    closeConsumer = undefined;
    await env.cleanup();
  });

  async function consume(ran: Ran[]): Promise<void> {
    if (consumer === 'plain') {
      const w = new Worker(
        env.queue,
        async (job: Job) => {
          const d = job.data as { scheduleId: string; fireAt: number; args: unknown[] };
          ran.push({ scheduleId: d.scheduleId, fireAt: d.fireAt, args: d.args, startedAt: Date.now() });
        },
        { connection: { url: REDIS_URL, maxRetriesPerRequest: null } },
      );
      closeConsumer = () => w.close();
      return;
    }
    const c = env.manager({ role: 'client' });
    c.schedule(
      (...a: unknown[]) => {
        const ctx = a[a.length - 1] as RunContext;
        ran.push({
          scheduleId: ctx.scheduleId,
          fireAt: ctx.fireAt,
          args: a.slice(0, -1),
          startedAt: Date.now(),
        });
      },
      new IntervalTrigger(3600),
      { id: 'handler', name: 'tick' },
    );
    const handle = await createWorker(c, { queues: [env.queue], logger: silent });
    await handle.ready();
    closeConsumer = () => handle.close();
  }

  /** A scheduler claiming 1.5 s ahead, one runtime schedule every 2 s; resolves with its first staged claim. */
  async function stagedOne(tag: string, args: unknown[] = [1]) {
    env = testEnv(`${tag}-${consumer}`);
    const m = env.manager({ claimLeaseMs: 8000, claimAheadMs: 1500, commitAhead: true });
    const admin = env.manager({ role: 'client' });
    await admin.schedule({ name: 'tick' }, new IntervalTrigger(2), { id: 's', args }).saved;
    const staged: Claim[] = [];
    m.hooks = { afterEnqueue: (c) => void staged.push(...c) };
    const ran: Ran[] = [];
    await consume(ran);
    await m.start();
    const q = new Queue(env.queue, { connection: { url: REDIS_URL } });
    let target: Claim | undefined;
    await waitUntil(async () => {
      const now = await redisNow(env.redis);
      target = staged.find((c) => c.fireAt > now + 500);
      return target !== undefined;
    }, 15_000);
    const fireAt = target!.fireAt;
    const jobId = occurrenceJobId('s', fireAt);
    return { m, admin, q, ran, fireAt, jobId };
  }

  it('a staged occurrence waits in the delayed set, due at its fire time, and runs then', async () => {
    const { m, q, ran, fireAt, jobId } = await stagedOne('ahead-run');
    expect(await q.getJobState(jobId)).toBe('delayed');
    const job = (await q.getJob(jobId))!;
    expect(job.timestamp + job.delay).toBe(fireAt); // BullMQ's score: exactly the fire time
    await waitUntil(() => ran.some((r) => r.fireAt === fireAt), 10_000);
    expect(ran.find((r) => r.fireAt === fireAt)!.startedAt).toBeGreaterThanOrEqual(fireAt); // never early
    await m.stop();
    await q.close();
  });

  it('pause takes a staged job out of BullMQ (recorded missed, paused); resume carries on after it', async () => {
    const { m, admin, q, ran, fireAt, jobId } = await stagedOne('ahead-pause');
    expect(await admin.pause('s')).toBe(true);
    expect(await q.getJob(jobId)).toBeUndefined();
    const record = (await admin.history('s', 10)).find((r) => r.fireAt === fireAt);
    expect(record?.outcome).toBe('missed');
    expect(record?.reason).toBe('paused');
    await waitUntil(async () => (await redisNow(env.redis)) > fireAt + 300, 10_000);
    expect(ran.map((r) => r.fireAt)).not.toContain(fireAt);
    expect(await admin.resume('s')).toBe(true);
    await waitUntil(() => ran.some((r) => r.fireAt > fireAt), 15_000);
    expect(ran.map((r) => r.fireAt)).not.toContain(fireAt);
    await m.stop();
    await q.close();
  });

  it('remove takes a staged job out of BullMQ', async () => {
    const { m, admin, q, ran, fireAt, jobId } = await stagedOne('ahead-remove');
    expect(await admin.remove('s')).toBe(true);
    expect(await q.getJob(jobId)).toBeUndefined();
    await waitUntil(async () => (await redisNow(env.redis)) > fireAt + 300, 10_000);
    expect(ran.map((r) => r.fireAt)).not.toContain(fireAt);
    await m.stop();
    await q.close();
  });

  it('update replaces a staged job: the occurrence runs once, as the new definition says', async () => {
    const { m, admin, q, ran, fireAt } = await stagedOne('ahead-update', ['old']);
    await admin.update('s', { args: ['new'] });
    await waitUntil(() => ran.some((r) => r.fireAt === fireAt), 15_000);
    await waitUntil(async () => (await redisNow(env.redis)) > fireAt + 300, 10_000);
    const runs = ran.filter((r) => r.fireAt === fireAt);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.args).toEqual(['new']);
    await m.stop();
    await q.close();
  });
});
