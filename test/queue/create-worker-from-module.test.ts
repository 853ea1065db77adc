import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import { REDIS } from './helpers.js';
import { StandInScheduler } from './stand-in-scheduler.js';

const silent = pino({ level: 'silent' });
let handle: WorkerHandle | undefined;

afterEach(async () => {
  await handle?.close({ graceMs: 100 });
  handle = undefined;
});

describe('createWorker queues', () => {
  it("serves only the queues it has a handler for, leaving a foreign consumer's queue alone", async () => {
    const mine = `bbq-mine-${process.pid}-${Date.now()}`;
    const theirs = `bbq-theirs-${process.pid}-${Date.now()}`;
    const scheduler = new StandInScheduler(`bbtest-queues-${randomUUID().slice(0, 8)}`, [mine, theirs]);
    scheduler.register('mine', () => 'ok', { queue: mine });
    const foreign = new Queue(theirs, { connection: REDIS });
    try {
      const job = await foreign.add('theirs', { for: 'a plain BullMQ consumer' });
      handle = await createWorker(scheduler, { logger: silent });
      await handle.ready();
      expect(handle.queues).toEqual([mine]);
      await new Promise((r) => setTimeout(r, 500));
      expect(await foreign.getJobState(job.id as string)).toBe('waiting');
    } finally {
      await handle?.close({ graceMs: 100 });
      handle = undefined;
      for (const queue of [foreign, new Queue(mine, { connection: REDIS })]) {
        await queue.obliterate({ force: true });
        await queue.close();
      }
    }
  });

  it('an explicit queues list overrides the rule', async () => {
    const tag = randomUUID().slice(0, 8);
    const [handled, extra] = [`handled-${tag}`, `extra-${tag}`];
    const scheduler = new StandInScheduler(`bbtest-explicit-${tag}`, [handled]);
    scheduler.register('mine', () => 'ok');
    handle = await createWorker(scheduler, { logger: silent, queues: [handled, extra] });
    expect(handle.queues).toEqual([handled, extra]);
  });
});

describe('createWorker options', () => {
  it('passes queue rate limits to BullMQ limiter, per queue over the default', async () => {
    const tag = randomUUID().slice(0, 8);
    const [qa, qb] = [`limit-a-${tag}`, `limit-b-${tag}`];
    const scheduler = new StandInScheduler(`bbtest-limits-${tag}`, [qa, qb])
      .register('a', () => 'a', { queue: qa })
      .register('b', () => 'b', { queue: qb });
    handle = await createWorker(scheduler, {
      logger: silent,
      concurrency: 3,
      limiter: { max: 10, durationMs: 1000 },
      limiters: { [qb]: { max: 2, durationMs: 500 } },
    });
    const [a, b] = handle.workers;
    expect(a?.opts.limiter).toEqual({ max: 10, duration: 1000 });
    expect(b?.opts.limiter).toEqual({ max: 2, duration: 500 });
    expect(a?.opts.concurrency).toBe(3);
  });
});
