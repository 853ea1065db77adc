// A run whose worker is SIGKILLed mid-run, across real worker processes (`bullbeat worker`): BullMQ's
// stalled check re-delivers it; the re-delivered attempt waits for its schedule's run slot (taken
// by a newer occurrence meanwhile) instead of being skipped, runs as attempt 2, and its record tells it.
import { afterEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { activeRuns } from '../../src/store/lease-store.js';
import { RunHistory } from '../../src/store/run-history.js';
import { TestBed, waitFor } from './helpers.js';
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
    const [first] = await waitFor(
      async () => {
        const started = await list<Started>('started');
        return started.length > 0 ? started : undefined;
      },
      30_000,
      'attempt 1 to start',
    );
    const victim = workers.find((w) => w.pid === first?.pid) as WorkerProcess;
    victim.child.kill('SIGKILL');
    await victim.exited;

    // Its lease lapses; a newer occurrence takes the slot and runs 8 s; another one is skipped.
    await waitFor(
      async () => (await activeRuns(bed.redis, keys(bed.prefix), ['slow'])).get('slow') === 0,
      20_000,
      'the dead run lease to lapse',
    );
    const newer = await bed.enqueue('slow', { fireAt: 2000, args: [8000], run, opts });
    await waitFor(async () => (await history.get('slow', 2000))?.outcome === 'running', 20_000, 'newer');
    const skipped = await bed.enqueue('slow', { fireAt: 3000, args: [100], run, opts });
    await bed.allSettled([killed.id, newer.id, skipped.id], 60_000);

    expect(await history.get('slow', 3000)).toMatchObject({ outcome: 'skipped', reason: 'overlap' });
    expect(await history.get('slow', 2000)).toMatchObject({ outcome: 'succeeded', attempts: 1 });
    const record = await history.get('slow', 1000);
    expect(record).toMatchObject({ outcome: 'succeeded', attempts: 2, jobId: killed.id });
    expect(record).not.toHaveProperty('error');
    expect(record?.previousAttempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'lost', startedAt: expect.any(Number) }),
    ]);
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
    expect(record?.previousAttempts?.[0]?.startedAt).toBeLessThan(newerRun.start);
  }, 120_000);
});
