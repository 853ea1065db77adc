import { type Job, Queue, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../src/queue/create-worker.js';
import type { RunContext } from '../../src/queue/pipeline.js';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import type { Claim } from '../../src/store/forms/schedule-store-types.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, silent, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

type Ran = { scheduleId: string; fireAt: number; args: unknown[]; startedAt: number };

/**
 * Occurrences claimed ahead are committed to BullMQ as delayed jobs due at their fire time; pause,
 * remove, update and resume reach such a staged job, whichever consumer runs the queue. On manual time
 * (manual-time.ts): the scheduler's fire loop, Redis's clock as it sees it, and BullMQ's promotion of
 * the delayed set move as the test moves them; the consumer is real, and what it ran is waited for.
 */
describe.each(['plain', 'runtime'] as const)('commit ahead (%s consumer)', (consumer) => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime | undefined;
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
  });

  /** Each run, its start on the test's time. */
  async function consume(ran: Ran[], t: ManualTime): Promise<void> {
    if (consumer === 'plain') {
      const w = new Worker(
        env.queue,
        async (job: Job) => {
          const d = job.data as { scheduleId: string; fireAt: number; args: unknown[] };
          ran.push({ scheduleId: d.scheduleId, fireAt: d.fireAt, args: d.args, startedAt: t.now() });
        },
        { connection: { url: REDIS_URL, maxRetriesPerRequest: null } },
      );
      closing.push(() => w.close());
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
          startedAt: t.now(),
        });
      },
      new IntervalTrigger(3600),
      { id: 'handler', name: 'tick' },
    );
    const handle = await createWorker(c, { queues: [env.queue], logger: silent });
    await handle.ready();
    closing.push(() => handle.close());
  }

  /**
   * A scheduler claiming 3 s ahead, one runtime schedule every 4 s; resolves with its first occurrence
   * staged at least 2 s before its fire time (BullMQ's workers promote on real time, which the test's
   * time runs ahead of: 2 s of real time would have to pass with the test's time standing still).
   */
  async function stagedOne(tag: string, args: unknown[] = [1]) {
    env = testEnv(`${tag}-${consumer}`);
    const t = new ManualTime(env.redis, env.prefix);
    time = t;
    await t.start();
    const m = env.manager({ claimLeaseMs: 12_000, claimAheadMs: 3000, commitAhead: true });
    const admin = env.manager({ role: 'client' });
    t.attach(m);
    t.attach(admin);
    await admin.schedule({ name: 'tick' }, new IntervalTrigger(4), { id: 's', args }).saved;
    const staged: Claim[] = [];
    m.hooks = { ...m.hooks, afterEnqueue: (c) => void staged.push(...c) };
    const ran: Ran[] = [];
    await consume(ran, t);
    const q = new Queue(env.queue, { connection: { url: REDIS_URL } });
    closing.push(() => q.close());
    t.followDelayed(q);
    await m.start();
    let target: Claim | undefined;
    await t.advanceUntil(
      () => {
        target = staged.find((c) => c.fireAt > t.now() + 2000);
        return target !== undefined;
      },
      10_000,
      50,
    );
    const fireAt = target!.fireAt;
    const jobId = occurrenceJobId('s', fireAt);
    return { t, admin, q, ran, fireAt, jobId };
  }

  it('a staged occurrence waits in the delayed set, due at its fire time, and runs then', async () => {
    const { t, q, ran, fireAt, jobId } = await stagedOne('ahead-run');
    expect(await q.getJobState(jobId)).toBe('delayed');
    const job = (await q.getJob(jobId))!;
    expect(job.timestamp + job.delay).toBe(fireAt); // BullMQ's score: exactly the fire time
    await t.advance(fireAt - 1 - t.now());
    expect(await q.getJobState(jobId)).toBe('delayed'); // 1 ms before: not runnable yet
    await t.advance(1);
    await waitUntil(() => ran.some((r) => r.fireAt === fireAt), 10_000, { what: 'the staged job run' });
    expect(ran.find((r) => r.fireAt === fireAt)!.startedAt).toBeGreaterThanOrEqual(fireAt); // never early
  });

  it('pause takes a staged job out of BullMQ (recorded missed, paused); resume carries on after it', async () => {
    const { t, admin, q, ran, fireAt, jobId } = await stagedOne('ahead-pause');
    expect(await admin.pause('s')).toBe(true);
    expect(await q.getJob(jobId)).toBeUndefined();
    const record = (await admin.history('s', 10)).find((r) => r.fireAt === fireAt);
    expect(record?.outcome).toBe('missed');
    expect(record?.reason).toBe('paused');
    await t.advance(fireAt + 300 - t.now());
    expect(await q.getJob(jobId)).toBeUndefined(); // not promoted, not run: not there at all
    expect(ran.map((r) => r.fireAt)).not.toContain(fireAt);
    expect(await admin.resume('s')).toBe(true);
    await t.advanceUntil(() => ran.some((r) => r.fireAt > fireAt), 15_000, 50);
    expect(ran.map((r) => r.fireAt)).not.toContain(fireAt);
  });

  it('remove takes a staged job out of BullMQ', async () => {
    const { t, admin, q, ran, fireAt, jobId } = await stagedOne('ahead-remove');
    expect(await admin.remove('s')).toBe(true);
    expect(await q.getJob(jobId)).toBeUndefined();
    await t.advance(fireAt + 300 - t.now());
    expect(await q.getJob(jobId)).toBeUndefined(); // not promoted, not run: not there at all
    expect(ran.map((r) => r.fireAt)).not.toContain(fireAt);
  });

  it('update replaces a staged job: the occurrence runs once, as the new definition says', async () => {
    const { t, admin, q, ran, fireAt } = await stagedOne('ahead-update', ['old']);
    await admin.update('s', { args: ['new'] });
    await t.advanceUntil(() => ran.some((r) => r.fireAt === fireAt), 15_000, 50);
    await t.advance(Math.max(0, fireAt + 300 - t.now()));
    // everything due has been taken and run
    await waitUntil(async () => {
      const c = await q.getJobCounts('wait', 'active');
      return (c.wait ?? 0) + (c.active ?? 0) === 0;
    }, 10_000);
    const runs = ran.filter((r) => r.fireAt === fireAt);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.args).toEqual(['new']);
  });
});
