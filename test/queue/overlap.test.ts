// Cluster-wide overlap control across real worker processes (`bullbeat worker` from the build).
import { afterEach, describe, expect, it } from 'vitest';
import type { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { keys } from '../../src/store/keys/keys.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { childFixture } from '../setup/child-fixtures.js';
import { waitUntil } from '../wait-until.js';
import { TestBed } from './helpers.js';
import { WorkerProcess } from './worker-process.js';

interface Interval {
  pid: number;
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

async function startWorkers(count: number, flags: string[]) {
  workers = await Promise.all(
    Array.from({ length: count }, () => WorkerProcess.start(bed.prefix, bed.queueName, flags)),
  );
}

async function list<T>(name: string): Promise<T[]> {
  return (await bed.redis.lrange(`${bed.prefix}:test:${name}`, 0, -1)).map((v) => JSON.parse(v) as T);
}

/** Puts an environment variable back as it was (this file shares a fork with other files). */
function restoreEnv(name: string, value: string | undefined) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** No two intervals share an instant. */
function expectNoOverlap(intervals: Interval[]) {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const before = sorted[i - 1] as Interval;
    const after = sorted[i] as Interval;
    expect(
      after.start,
      `${JSON.stringify(after)} starts before ${JSON.stringify(before)} ends`,
    ).toBeGreaterThanOrEqual(before.end);
  }
}

describe('overlap across worker processes', () => {
  it('a 2.5 s job every second on 3 workers never runs twice at once with maxInstances 1', async () => {
    bed = new TestBed();
    await startWorkers(3, ['--concurrency', '1']);
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const base = Date.now() + 500;
    const jobs = [];
    for (let i = 0; i < 8; i++) {
      const fireAt = base + i * 1000;
      jobs.push(
        await bed.enqueue('slow', {
          fireAt,
          args: [2500],
          run: { maxInstances: 1, coalesce: true },
          opts: { delay: Math.max(0, fireAt - Date.now()) },
        }),
      );
    }
    await bed.allSettled(jobs.map((j) => j.id));

    const intervals = await list<Interval>('intervals');
    expectNoOverlap(intervals);
    const records = await history.list('slow');
    expect(records).toHaveLength(8);
    const succeeded = records.filter((r) => r.outcome === 'succeeded');
    const skipped = records.filter((r) => r.outcome === 'skipped');
    expect(succeeded.length + skipped.length).toBe(8);
    expect(skipped.every((r) => r.reason === 'overlap')).toBe(true);
    expect(succeeded.map((r) => r.fireAt).sort()).toEqual(intervals.map((i) => i.fireAt).sort());
    // 8 s of 2.5 s runs: at most 4 fit one after another, so at least 4 occurrences were skipped.
    expect(succeeded.length).toBeGreaterThanOrEqual(1);
    expect(skipped.length).toBeGreaterThanOrEqual(4);
    expect(await history.counts('slow')).toMatchObject({ runs: succeeded.length, skipped: skipped.length });
  }, 90_000);

  it('the same, fired by a SchedulerManager: every occurrence ran or was skipped as overlap', async () => {
    bed = new TestBed();
    const jobs = childFixture('test/queue/fixtures/manager-jobs.ts');
    workers = await Promise.all(
      Array.from({ length: 3 }, () =>
        WorkerProcess.start(bed.prefix, bed.queueName, ['--concurrency', '1'], jobs),
      ),
    );
    // the jobs module reads its prefix and queue from the environment when it is first imported
    const saved = { prefix: process.env.BB_TEST_PREFIX, queue: process.env.BB_TEST_QUEUE };
    process.env.BB_TEST_PREFIX = bed.prefix;
    process.env.BB_TEST_QUEUE = bed.queueName;
    const { default: scheduler } = (await import('./fixtures/manager-jobs.js').finally(() => {
      restoreEnv('BB_TEST_PREFIX', saved.prefix);
      restoreEnv('BB_TEST_QUEUE', saved.queue);
    })) as { default: SchedulerManager };
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    try {
      await scheduler.start();
      // fired until at least 5 occurrences are recorded and one was skipped as overlap (about 5 s of
      // 2.5 s runs every second; waited for, not timed, so a loaded box only takes longer)
      await waitUntil(
        async () => {
          const records = await history.list('slow');
          return records.length >= 5 && records.some((r) => r.outcome === 'skipped');
        },
        60_000,
        { what: 'five recorded occurrences, one skipped' },
      );
    } finally {
      await scheduler.stop();
    }
    const settledRecords = await waitUntil(
      async () => {
        const records = await history.list('slow');
        return records.length > 0 &&
          records.every((r) => r.outcome === 'succeeded' || r.outcome === 'skipped')
          ? records
          : undefined;
      },
      30_000,
      { what: 'every fired occurrence to finish' },
    );
    const intervals = await list<Interval>('intervals');
    expectNoOverlap(intervals);
    const succeeded = settledRecords.filter((r) => r.outcome === 'succeeded');
    const skipped = settledRecords.filter((r) => r.outcome === 'skipped');
    expect(settledRecords.length).toBeGreaterThanOrEqual(5);
    expect(skipped.every((r) => r.reason === 'overlap')).toBe(true);
    expect(skipped.length).toBeGreaterThanOrEqual(1);
    expect(succeeded.map((r) => r.fireAt).sort()).toEqual(intervals.map((i) => i.fireAt).sort());
    for (const r of succeeded) expect(r.enqueuedAt).toBeLessThanOrEqual(r.startedAt as number);
  }, 90_000);

  it('a worker killed mid-run frees its slot when its lease lapses', async () => {
    bed = new TestBed();
    const ttl = 4000;
    await startWorkers(2, ['--concurrency', '1', '--lease-ttl-ms', String(ttl)]);
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const run = { maxInstances: 1, coalesce: true };
    await bed.enqueue('hang', { fireAt: 1, run });
    const [started] = await waitUntil(
      async () => {
        const entries = await list<{ pid: number }>('started');
        return entries.length > 0 ? entries : undefined;
      },
      30_000,
      { what: 'the hanging run to start' },
    );
    const victim = workers.find((w) => w.pid === started?.pid) as WorkerProcess;
    expect(victim).toBeDefined();
    victim.child.kill('SIGKILL');
    await victim.exited;
    const leaseKey = keys(bed.prefix).lease('hang');
    const lease = await bed.redis.zrange(leaseKey, '0', '-1', 'WITHSCORES');
    expect(lease).toHaveLength(2); // the dead run's lease is still there
    const expiresAt = Number(lease[1]);

    // Probe with quick runs of the same schedule until one runs.
    const probes = [];
    for (let fireAt = 2; ; fireAt++) {
      const job = await bed.enqueue('quick', { scheduleId: 'hang', fireAt, run });
      await bed.allSettled([job.id], 20_000);
      const record = await history.get('hang', fireAt);
      probes.push(record);
      if (record?.outcome === 'succeeded') break;
      expect(fireAt).toBeLessThan(500);
      await new Promise((r) => setTimeout(r, 100));
    }
    const last = probes.at(-1);
    const skippedProbes = probes.slice(0, -1);
    expect(skippedProbes.every((r) => r?.outcome === 'skipped' && r.reason === 'overlap')).toBe(true);
    // Skipped while the dead lease lived; ran only once it had lapsed (Redis and this process share
    // the host clock; 5 ms of slack for the rounding between them).
    expect(skippedProbes.length).toBeGreaterThanOrEqual(1);
    for (const r of skippedProbes) expect(r?.finishedAt).toBeLessThanOrEqual(expiresAt + 5);
    expect(last?.startedAt).toBeGreaterThanOrEqual(expiresAt - 5);
  }, 90_000);
});
