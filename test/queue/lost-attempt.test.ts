// A run whose worker is SIGKILLed mid-run, across real worker processes (`bullbeat worker`): BullMQ's
// stalled check re-delivers it; the re-delivered attempt waits for its schedule's run slot (taken
// by a newer occurrence meanwhile) instead of being skipped, runs as attempt 2, and its record tells it.

import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { whyDidntItRun } from '../../src/insight/why.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { ScheduleStore } from '../../src/store/deployment/schedule-store.js';
import { decodeDefinition } from '../../src/store/forms/schedule-definition.js';
import { keys } from '../../src/store/keys/keys.js';
import { activeRuns } from '../../src/store/reads/lease-store.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { REDIS_URL } from '../redis-url.js';
import { waitUntil } from '../wait-until.js';
import { TestBed } from './helpers.js';
import { WorkerProcess } from './worker-process.js';

interface Started {
  pid: number;
  fireAt: number;
  attempt: number;
  start: number;
}
interface Interval {
  pid: number;
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

async function list<T>(name: string): Promise<T[]> {
  return (await bed.redis.lrange(`${bed.prefix}:test:${name}`, 0, -1)).map((v) => JSON.parse(v) as T);
}

describe('a run lost with its worker', () => {
  it('is re-run as attempt 2 once the slot a newer occurrence took frees, not skipped; its record tells it', async () => {
    bed = new TestBed();
    // Small BullMQ lock and stalled interval, so that the killed run comes back within seconds; a
    // lease TTL shorter than the lock, so that its slot is free (and taken by a newer run) before.
    const flags = [
      '--concurrency',
      '2',
      '--lease-ttl-ms',
      '1500',
      '--lock-duration-ms',
      '4000',
      '--stalled-interval-ms',
      '1000',
    ];
    workers = await Promise.all([0, 1].map(() => WorkerProcess.start(bed.prefix, bed.queueName, flags)));
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const run = { maxInstances: 1, coalesce: true };
    const opts = { attempts: 2 };

    const killed = await bed.enqueue('slow', { fireAt: 1000, args: [3000], run, opts });
    const [first] = await waitUntil(
      async () => {
        const started = await list<Started>('started');
        return started.length > 0 ? started : undefined;
      },
      30_000,
      { what: 'attempt 1 to start' },
    );
    const victim = workers.find((w) => w.pid === first?.pid) as WorkerProcess;
    victim.child.kill('SIGKILL');
    await victim.exited;

    // Its lease lapses; a newer occurrence takes the slot and runs 8 s; another one is skipped.
    await waitUntil(
      async () => (await activeRuns(bed.redis, keys(bed.prefix), ['slow'])).get('slow') === 0,
      20_000,
      { what: 'the dead run lease to lapse' },
    );
    const newer = await bed.enqueue('slow', { fireAt: 2000, args: [8000], run, opts });
    await waitUntil(async () => (await history.get('slow', 2000))?.outcome === 'running', 20_000, {
      what: 'newer',
    });
    const skipped = await bed.enqueue('slow', { fireAt: 3000, args: [100], run, opts });
    await bed.allSettled([killed.id, newer.id, skipped.id], 60_000);

    expect(await history.get('slow', 3000)).toMatchObject({ outcome: 'skipped', reason: 'overlap' });
    expect(await history.get('slow', 2000)).toMatchObject({ outcome: 'succeeded', attempts: 1 });
    const record = await history.get('slow', 1000);
    expect(record).toMatchObject({ outcome: 'succeeded', attempts: 2, jobId: killed.id });
    expect(record).not.toHaveProperty('error');
    // Killed right after it started: within recordLagMs its `running` record may not be written yet;
    // BullMQ's stall count still tells the lost attempt (its start known only when it was recorded).
    expect(record?.previousAttempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'lost' })]);
    expect(record?.previousAttempts?.[0]?.error).toContain('lost with its worker');

    const starts = (await list<Started>('started')).filter((s) => s.fireAt === 1000);
    expect(starts.map((s) => [s.pid, s.attempt])).toEqual([
      [victim.pid, 1],
      [workers.find((w) => w !== victim)?.pid, 2],
    ]);
    // Attempt 2 waited for the newer run to finish: the two never overlapped.
    const intervals = await list<Interval>('intervals');
    const newerRun = intervals.find((i) => i.fireAt === 2000) as Interval;
    const rerun = intervals.find((i) => i.fireAt === 1000) as Interval;
    expect(rerun.start).toBeGreaterThanOrEqual(newerRun.end);
    expect(record?.startedAt).toBeGreaterThanOrEqual(newerRun.end);
    const lostStart = record?.previousAttempts?.[0]?.startedAt;
    if (lostStart !== undefined) expect(lostStart).toBeLessThan(newerRun.start);
  }, 120_000);
  it('killed twice (attempts 3): BullMQ fails the stalled job; the run is recorded failed, its lost attempts listed, counted for pauseOnFailure', async () => {
    bed = new TestBed();
    // BullMQ's default maxStalledCount (1): the second stall fails the job (when a worker next takes it).
    const flags = [
      '--concurrency',
      '1',
      '--lease-ttl-ms',
      '1500',
      '--lock-duration-ms',
      '2000',
      '--stalled-interval-ms',
      '1000',
    ];
    workers = await Promise.all([0, 1, 2].map(() => WorkerProcess.start(bed.prefix, bed.queueName, flags)));
    const k = keys(bed.prefix);
    const history = new RunHistory(bed.redis, k);
    // the schedule exists (active), so that pauseOnFailure can pause it
    const store = new ScheduleStore(bed.redis, k, 100);
    const { def } = decodeDefinition(
      'slow',
      JSON.stringify({ name: 'slow', queue: bed.queueName, trigger: { type: 'interval', seconds: 3600 } }),
    );
    expect(await store.upsert(def, 'fp', Date.now() + 3_600_000, Date.now())).toBe('created');
    const run = { maxInstances: 1, coalesce: true, pauseOnFailure: 1 };
    const job = await bed.enqueue('slow', { fireAt: 1000, args: [60_000], run, opts: { attempts: 3 } });

    const killed: WorkerProcess[] = [];
    for (const attempt of [1, 2]) {
      const started = await waitUntil(
        async () => (await list<Started>('started')).find((s) => s.attempt === attempt),
        30_000,
        { what: `attempt ${attempt} to start` },
      );
      const victim = workers.find((w) => w.pid === started.pid) as WorkerProcess;
      victim.child.kill('SIGKILL');
      await victim.exited;
      killed.push(victim);
    }
    await waitUntil(async () => (await bed.queue.getJobState(job.id as string)) === 'failed', 40_000, {
      what: 'BullMQ to fail it',
    });
    const record = await waitUntil(
      async () => {
        const r = await history.get('slow', 1000);
        return r?.outcome === 'failed' ? r : undefined;
      },
      10_000,
      { what: 'the failed record' },
    );
    expect(record).toMatchObject({ outcome: 'failed', attempts: 2, jobId: job.id });
    expect(record.error).toContain('lost with its worker');
    expect(record.previousAttempts?.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'lost'],
      [2, 'lost'],
    ]);
    expect(await history.counts('slow')).toMatchObject({ runs: 1, errors: 1 });
    // pauseOnFailure: 1 counted it: the schedule is paused
    expect((await store.get('slow'))?.state.status).toBe('p');
    expect((await list<Started>('started')).filter((s) => s.fireAt === 1000)).toHaveLength(2);
  }, 120_000);
  it('schedule:why does not say "running now" of a run whose worker died (its lease lapsed)', async () => {
    bed = new TestBed();
    const flags = ['--concurrency', '1', '--lease-ttl-ms', '1500', '--lock-duration-ms', '30000'];
    workers = [await WorkerProcess.start(bed.prefix, bed.queueName, flags)];
    const options = { prefix: bed.prefix, defaultQueue: bed.queueName, connection: REDIS_URL };
    const logger = pino({ level: 'silent' });
    // stored as a custom trigger that the asking manager does not define: why reads the latest record
    const owner = new SchedulerManager({ ...options, role: 'client', logger });
    owner.schedule({ name: 'hang' }, { nextFire: () => Date.now() + 3_600_000 }, { id: 'hang' });
    await owner.start();
    const asker = new SchedulerManager({ ...options, role: 'client', logger });
    try {
      await bed.enqueue('hang', { fireAt: 1000, run: { maxInstances: 1, coalesce: true } });
      await waitUntil(async () => (await list<Started>('started')).length > 0, 30_000, {
        what: 'the run to start',
      });
      // its `running` record is written behind (recordLagMs, 1 s): the run hangs, so it comes
      await waitUntil(
        async () =>
          (await new RunHistory(bed.redis, keys(bed.prefix)).get('hang', 1000))?.outcome === 'running',
        10_000,
        { what: 'the running record' },
      );
      expect(await whyDidntItRun(asker, 'hang')).toMatchObject({ cause: 'running', fireAt: 1000 });

      workers[0]?.child.kill('SIGKILL');
      await workers[0]?.exited;
      await waitUntil(
        async () => (await activeRuns(bed.redis, keys(bed.prefix), ['hang'])).get('hang') === 0,
        20_000,
        { what: 'the dead run lease to lapse' },
      );
      // BullMQ still holds the job active (its lock runs 30 s): the lapsed lease says the worker died
      expect(await bed.queue.getJobState((await bed.queue.getJobs(['active']))[0]?.id as string)).toBe(
        'active',
      );
      const why = await whyDidntItRun(asker, 'hang');
      expect(why.cause).toBe('lost');
      expect(why.summary).not.toContain('running now');
      expect(why.summary).toContain('lost with its worker');
    } finally {
      await owner.close();
      await asker.close();
    }
  }, 90_000);
});
