// Graceful shutdown of a worker process on SIGTERM.
import { afterEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys/keys.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { waitUntil } from '../wait-until.js';
import { TestBed } from './helpers.js';
import { WorkerProcess } from './worker-process.js';

let bed: TestBed;
let worker: WorkerProcess | undefined;

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await bed.cleanup();
});

async function list(name: string): Promise<{ fireAt: number; reason?: string }[]> {
  return (await bed.redis.lrange(`${bed.prefix}:test:${name}`, 0, -1)).map((v) => JSON.parse(v));
}

async function startedThenTerm(graceMs: number, args: unknown[]) {
  bed = new TestBed();
  worker = await WorkerProcess.start(bed.prefix, bed.queueName, ['--grace-ms', String(graceMs)]);
  const job = await bed.enqueue('graceful', { fireAt: 1, args });
  await waitUntil(async () => (await list('started')).length > 0, 30_000, { what: 'the run to start' });
  worker.child.kill('SIGTERM');
  const exit = await worker.exited;
  return { job, exit, history: new RunHistory(bed.redis, keys(bed.prefix)) };
}

describe('SIGTERM', () => {
  it('lets a running job finish within the grace period, then exits 0', async () => {
    const { job, exit, history } = await startedThenTerm(20_000, [1000, false]);
    expect(exit.code).toBe(0);
    expect(await list('finished')).toHaveLength(1);
    expect(await bed.queue.getJobState(job.id as string)).toBe('completed');
    expect(await history.get('graceful', 1)).toMatchObject({ outcome: 'succeeded' });
  }, 60_000);

  it('aborts a job that outlives the grace period through its signal and fails it', async () => {
    const { job, exit, history } = await startedThenTerm(300, [600_000, false]);
    expect(exit.code).toBe(0);
    expect(await list('aborted')).toEqual([expect.objectContaining({ reason: 'WorkerShutdownError' })]);
    expect(await bed.queue.getJobState(job.id as string)).toBe('failed');
    const record = await history.get('graceful', 1);
    expect(record).toMatchObject({ outcome: 'failed' });
    expect(record?.error).toContain('grace period of 300 ms');
  }, 60_000);

  it('closes even when the handler ignores its signal', async () => {
    const { job, exit, history } = await startedThenTerm(300, [600_000, true]);
    expect(exit.code).toBe(0);
    expect(await bed.queue.getJobState(job.id as string)).toBe('failed');
    expect(await history.get('graceful', 1)).toMatchObject({ outcome: 'failed' });
  }, 60_000);
});
