// Fencing tokens across real worker processes: a run whose worker stalls (SIGSTOP) past its lease and
// its BullMQ lock is re-run by another worker with a newer token; when the stalled one wakes up and
// completes, its outcome is refused (the record keeps the newer run's), and it says so in its log.
import { afterEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys/keys.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { waitUntil } from '../wait-until.js';
import { TestBed } from './helpers.js';
import { WorkerProcess } from './worker-process.js';

interface Report {
  pid: number;
  fireAt: number;
  attempt?: number;
  token: number;
}

let bed: TestBed;
let workers: WorkerProcess[] = [];

afterEach(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGCONT');
  await Promise.all(workers.map((w) => w.stop()));
  workers = [];
  await bed.cleanup();
});

async function list(name: string): Promise<Report[]> {
  return (await bed.redis.lrange(`${bed.prefix}:test:${name}`, 0, -1)).map((v) => JSON.parse(v) as Report);
}

describe('fencing token', () => {
  it('a run stalled past its lease cannot write its completion over the newer run of its occurrence', async () => {
    bed = new TestBed();
    // A short lease and BullMQ lock, so that the stalled run is taken over within seconds.
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
    workers = await Promise.all([0, 1].map(() => WorkerProcess.start(bed.prefix, bed.queueName, flags)));
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const job = await bed.enqueue('fenced', { fireAt: 1000, args: [6000], opts: { attempts: 2 } });
    const [first] = await waitUntil(async () => {
      const started = await list('started');
      return started.length > 0 ? started : undefined;
    }, 30_000);
    expect(first?.token).toBe(1);
    const stalled = workers.find((w) => w.pid === first?.pid) as WorkerProcess;
    const other = workers.find((w) => w !== stalled) as WorkerProcess;
    stalled.child.kill('SIGSTOP');

    // The other worker re-runs the occurrence (BullMQ's stalled check) once the lease lapsed: token 2.
    const second = await waitUntil(async () => (await list('started')).find((s) => s.token === 2), 30_000, {
      what: 'the take-over run',
    });
    expect(second.pid).toBe(other.pid);
    // its `running` record is written behind (recordLagMs, 1 s): the run goes on 6 s, so it is there
    // before the stalled one wakes
    const running = await waitUntil(
      async () => {
        const r = await history.get('fenced', 1000);
        return r?.outcome === 'running' ? r : undefined;
      },
      10_000,
      { what: 'the take-over run recorded running' },
    );
    expect(running).toMatchObject({ outcome: 'running', fencingToken: 2 });

    // The stalled run wakes up and finishes its 6 s (its handler ignores the signal) before the new one:
    // 6 s, not 3, leaves the newer run seconds of margin after the wait for its record on a loaded box.
    stalled.child.kill('SIGCONT');
    await waitUntil(async () => (await list('finished')).some((f) => f.token === 1), 30_000, {
      what: 'the stalled run to finish',
    });
    await waitUntil(() => stalled.output.includes('outcome not written'), 10_000, {
      what: 'the refusal in its log',
    });
    const afterStale = await history.get('fenced', 1000);
    expect(afterStale).toMatchObject({ fencingToken: 2 });
    expect(afterStale?.outcome).not.toBe('failed');
    if (afterStale?.outcome === 'succeeded') {
      // on a loaded box the newer run may have ended by now: then it is its own completion, never the
      // stalled run's (which its log says was refused)
      expect((await list('finished')).some((f) => f.token === 2)).toBe(true);
    }

    // The newer run completes and its outcome is written.
    await bed.allSettled([job.id], 30_000);
    const final = await history.get('fenced', 1000);
    expect(final).toMatchObject({ outcome: 'succeeded', fencingToken: 2, attempts: 2 });
    expect(final?.worker).toContain(`:${other.pid}`);
    expect((await bed.queue.getJob(job.id as string))?.returnvalue).toBe('done by token 2');
  }, 90_000);
});
