// Exclusion groups: runs of schedules that share a group never overlap anywhere in the cluster.
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys/keys.js';
import { LeaseStore } from '../../src/store/reads/lease-store.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { waitUntil } from '../wait-until.js';
import { REDIS, TestBed } from './helpers.js';
import { WorkerProcess } from './worker-process.js';

interface Interval {
  scheduleId: string;
  fireAt: number;
  start: number;
  end: number;
}

let bed: TestBed;
let workers: WorkerProcess[] = [];

afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  workers = [];
  await bed.cleanup();
});

describe('exclusion groups', () => {
  it('hands a busy group to its waiters in arrival order', async () => {
    bed = new TestBed();
    const redis = new Redis(REDIS);
    try {
      const store = new LeaseStore(redis, 10_000);
      const k = keys(bed.prefix);
      expect(await store.tryGroup(k, 'g', 'a')).toBe(true);
      expect(await store.tryGroup(k, 'g', 'b')).toBe(false);
      expect(await store.tryGroup(k, 'g', 'c')).toBe(false);
      await store.release(k.group('g'), 'a');
      expect(await store.tryGroup(k, 'g', 'c')).toBe(false); // b came first
      expect(await store.tryGroup(k, 'g', 'b')).toBe(true);
      await store.release(k.group('g'), 'b');
      expect(await store.tryGroup(k, 'g', 'c')).toBe(true);
    } finally {
      await redis.quit();
    }
  });

  it('drops a waiter that stopped asking, so it does not block the line', async () => {
    bed = new TestBed();
    const redis = new Redis(REDIS);
    try {
      const store = new LeaseStore(redis, 300);
      const k = keys(bed.prefix);
      expect(await store.tryGroup(k, 'g', 'holder')).toBe(true);
      expect(await store.tryGroup(k, 'g', 'dead')).toBe(false);
      await store.release(k.group('g'), 'holder');
      // `dead` never asks again; once its heartbeat lapses, `next` gets the group.
      const taken = await waitUntil(() => store.tryGroup(k, 'g', 'next'), 5_000, {
        what: 'the line to move on',
      });
      expect(taken).toBe(true);
      expect(await redis.zscore(k.groupQueue('g'), 'dead')).toBeNull();
    } finally {
      await redis.quit();
    }
  });

  it('two schedules of one group never overlap across worker processes; a waiter past the bound is skipped', async () => {
    bed = new TestBed();
    workers = await Promise.all(
      Array.from({ length: 3 }, () => WorkerProcess.start(bed.prefix, bed.queueName, ['--concurrency', '2'])),
    );
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const run = { maxInstances: 0, coalesce: false, exclusionGroup: 'reports', exclusionWaitMs: 30_000 };
    const jobs = [];
    for (let i = 1; i <= 3; i++) {
      jobs.push(await bed.enqueue('groupA', { fireAt: i, args: [300], run }));
      jobs.push(await bed.enqueue('groupB', { fireAt: i, args: [300], run }));
    }
    await bed.allSettled(jobs.map((j) => j.id));
    const intervals = (await bed.redis.lrange(`${bed.prefix}:test:group`, 0, -1)).map(
      (v) => JSON.parse(v) as Interval,
    );
    expect(intervals).toHaveLength(6);
    const sorted = intervals.sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      expect((sorted[i] as Interval).start).toBeGreaterThanOrEqual((sorted[i - 1] as Interval).end);
    }
    for (const id of ['groupA', 'groupB']) {
      expect((await history.list(id)).map((r) => r.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    }

    // groupA holds the group for 4 s; groupB will wait 300 ms only, and is skipped naming the group.
    // A second groupB occurrence with timeoutMs 500 waits its turn (longer than 500 ms) and then
    // runs: waiting does not count against its timeout.
    const holder = await bed.enqueue('groupA', { fireAt: 10, args: [4000], run });
    // held: the group's holder set, not the `running` record, which a run writes before it takes its
    // group (waiting on the record let the impatient one take the group first on a busy box)
    await waitUntil(async () => (await bed.redis.zcard(keys(bed.prefix).group('reports'))) === 1, 15_000);
    const impatient = await bed.enqueue('groupB', {
      fireAt: 10,
      args: [10],
      run: { ...run, exclusionWaitMs: 300 },
    });
    const patient = await bed.enqueue('groupB', { fireAt: 11, args: [10], run: { ...run, timeoutMs: 500 } });
    await bed.allSettled([holder.id, impatient.id, patient.id]);
    expect(await history.get('groupB', 10)).toMatchObject({
      outcome: 'skipped',
      reason: 'exclusion-group',
      group: 'reports',
    });
    expect((await bed.queue.getJob(impatient.id as string))?.returnvalue).toEqual({
      skipped: 'exclusion-group',
      group: 'reports',
    });
    const patientRecord = await history.get('groupB', 11);
    const holderRecord = await history.get('groupA', 10);
    expect(patientRecord).toMatchObject({ outcome: 'succeeded' });
    expect(patientRecord?.startedAt).toBeGreaterThanOrEqual(holderRecord?.finishedAt as number);
    expect(await history.counts('groupB')).toMatchObject({ runs: 4, skipped: 1 });
  }, 90_000);
});
