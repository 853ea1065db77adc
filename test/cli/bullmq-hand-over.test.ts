import { afterEach, describe, expect, it } from 'vitest';
import { BullmqHandOver } from '../../src/cli/bullmq-hand-over.js';
import type { BullmqOriginals } from '../../src/cli/bullmq-originals.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { BullmqHandovers } from '../../src/store/bullmq/bullmq-handover.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { testEnv } from '../scheduler/helpers.js';

// The hand-over's steps against a BullMQ side that moves on to a new pending job at every try (a job
// scheduler whose worker takes each job while the import is between its read and its removal: a
// race, played here by a stand-in for the queue's originals; migrate-bullmq-orders runs the real one).

describe('import:bullmq hand-over, BullMQ moving on at every try', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  it('gives up with the schedule held and its record saying BullMQ runs every occurrence', async () => {
    env = testEnv('hand-over-moved-on');
    const manager = env.manager({ role: 'client' });
    await manager.schedule({ name: 'ping' }, new IntervalTrigger(1), { id: 'ping' }).saved;
    let pending = Date.now() + 1000;
    const removals: number[] = [];
    const originals = {
      queueName: env.queue,
      pendingAt: async () => pending,
      iterations: async () => 3,
      keepPending: async (_id: string, at: number) => {
        removals.push(at);
        pending += 1000; // BullMQ's worker took the job at `at`; its next one is pending now
        return 'moved-on' as const;
      },
    } as unknown as BullmqOriginals;
    const handOver = new BullmqHandOver(manager, originals, { by: 'test', via: 'cli' });
    const settled = await handOver.settle(
      'ping',
      { kind: 'job-scheduler', key: 'ping', name: 'ping' },
      true,
      true,
    );
    expect(settled?.handover).toEqual({ state: 'moved-on' });
    expect(removals.length).toBeGreaterThan(1);
    const record = await new BullmqHandovers(internalsOf(manager).redis, internalsOf(manager).keys).get(
      'ping',
    );
    // BullMQ's job scheduler still runs each occurrence, and schedule:why reads this record to say so
    expect(record?.until).toBeNull();
    expect((await manager.get('ping'))?.toJSON().status).toBe('paused');
  });

  it("counts the occurrences it backfills after a slow hand-over against the job scheduler's limit", async () => {
    env = testEnv('hand-over-limit');
    const manager = env.manager({ role: 'client' });
    await manager.schedule({ name: 'ping' }, new IntervalTrigger(1), { id: 'ping' }).saved;
    // BullMQ made 4 of its limit of 10, the 4th pending 3.5 s ago: the hand-over came late, and the
    // occurrences due since are bullbeat's to backfill
    const pending = Date.now() - 3_500;
    const originals = {
      queueName: env.queue,
      pendingAt: async () => pending,
      iterations: async () => 4,
      keepPending: async () => 'removed' as const,
    } as unknown as BullmqOriginals;
    const handOver = new BullmqHandOver(manager, originals, { by: 'test', via: 'cli' });
    const settled = await handOver.settle(
      'ping',
      { kind: 'job-scheduler', key: 'ping', name: 'ping', limit: 10 },
      true,
      true,
    );
    expect(settled?.handover).toMatchObject({ state: 'handed-over', until: pending });
    const enqueued = (await env.jobIds()).filter((j) => j.includes('-b')).length;
    expect(enqueued).toBeGreaterThanOrEqual(2);
    const maxRuns = (await internalsOf(manager).get('ping'))?.def.maxRuns;
    // BullMQ's 4, the backfilled ones and the scheduled ones left: the limit, not more
    expect(4 + enqueued + (maxRuns ?? 0)).toBe(10);
  });
});
