// Backpressure's look-up of previous jobs (`stillWaiting`, one `unstarted-since-n` call per queue):
// real BullMQ jobs (ids `j-...`: not a BullMQ key's name) in every state a previous occurrence's job can be in, on a queue of its own.
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { stillWaiting } from '../../src/scheduler/fire/backpressure.js';
import { REDIS_URL } from '../redis-url.js';
import { waitUntil } from '../wait-until.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('stillWaiting', () => {
  it('a waiting, delayed or prioritized job waits; a started, finished or missing one does not; young until it waited long enough', async () => {
    const prefix = `sw-${randomUUID().slice(0, 8)}`;
    const queue = new Queue('q', { connection: { url: REDIS_URL }, prefix });
    cleanups.push(async () => {
      await queue.obliterate({ force: true });
      await queue.close();
    });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // takes 'j-active' and holds it; 'j-done' runs to completion first
    const worker = new Worker('q', async (job) => (job.id === 'j-active' ? held : undefined), {
      connection: { url: REDIS_URL },
      prefix,
      autorun: false,
    });
    cleanups.push(async () => {
      release();
      await worker.close();
    });
    await queue.add('t', {}, { jobId: 'j-done' });
    await queue.add('t', {}, { jobId: 'j-active' });
    worker.run().catch(() => undefined);
    await waitUntil(async () => (await queue.getJobState('j-active')) === 'active');
    await waitUntil(async () => (await queue.getJobState('j-done')) === 'completed');
    await worker.pause(true); // nothing more is taken: the rest wait
    await queue.add('t', {}, { jobId: 'j-waiting' });
    await queue.add('t', {}, { jobId: 'j-delayed', delay: 60_000 });
    await queue.add('t', {}, { jobId: 'j-prioritized', priority: 5 });
    const stamp = Number((await queue.getJob('j-waiting'))!.timestamp);

    const ids = ['j-waiting', 'j-delayed', 'j-prioritized', 'j-active', 'j-done', 'j-never-added'];
    const jobs = ids.map((id) => ({ tag: id, queue: 'q', jobId: id, minWaitedMs: 0 }));
    const now = stamp + 10_000;
    const seen = await stillWaiting(jobs, () => queue, now);
    expect([...seen.waiting].sort()).toEqual(['j-delayed', 'j-prioritized', 'j-waiting']);
    expect([...seen.young]).toEqual([]);

    // one that has not waited `minWaitedMs` yet is young; a fire time later than its timestamp counts from it
    const young = await stillWaiting(
      [
        { tag: 'short', queue: 'q', jobId: 'j-waiting', minWaitedMs: 60_000 },
        { tag: 'staged', queue: 'q', jobId: 'j-waiting', minWaitedMs: 5_000, dueAt: now - 1_000 },
        { tag: 'long', queue: 'q', jobId: 'j-waiting', minWaitedMs: 5_000 },
      ],
      () => queue,
      now,
    );
    expect([...young.waiting]).toEqual(['long']);
    expect([...young.young].sort()).toEqual(['short', 'staged']);
  });
});
