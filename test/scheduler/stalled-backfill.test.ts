import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/index.js';
import type { RunContext } from '../../src/queue/pipeline.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { childFixture } from '../setup/child-fixtures.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, redisNow, testEnv } from './helpers.js';
import { spawnReplicaProcess } from './replica-process.js';

const REPLICA = childFixture('test/scheduler/fixtures/replica.ts');
const BACKFILLER = childFixture('test/scheduler/fixtures/backfiller.ts');
const OCCURRENCES = 500;
const STALL_MS = Number(process.env.BULLBEAT_STALL_SECONDS ?? 15) * 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A backfill stopped (SIGSTOP) part way, past the time by which it owed its adds, on a queue kept busy
 * by other schedules: a replica's sweep enqueues the occurrences it owed, they run (their jobs removed
 * at once, `removeOnComplete: true`, their records trimmed past the default 100), and the backfill,
 * woken, adds none of them again. Each occurrence runs once. bullbeat's own worker runs every job.
 */
describe('a backfill stopped past its owed time', () => {
  let env: ReturnType<typeof testEnv>;
  let worker: WorkerHandle | undefined;
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    await worker?.close({ graceMs: 1000 });
    worker = undefined;
    await env.cleanup();
  });

  it(`${OCCURRENCES} at 200/s, stopped ${STALL_MS / 1000} s after the first 100: each runs once`, async () => {
    env = testEnv('stall-backfill');
    const consumer = env.manager({ role: 'client' });
    const runs = new Map<number, number>();
    consumer.handle('tick', (ctx: RunContext) => {
      if (ctx.scheduleId === 'bf') runs.set(ctx.fireAt, (runs.get(ctx.fireAt) ?? 0) + 1);
    });
    worker = await createWorker(consumer, { concurrency: 50 });
    await worker.ready();

    // the busy queue (and the sweep of owed runs): 10 schedules every 100 ms
    const vars = { REDIS_URL, PREFIX: env.prefix, QUEUE: env.queue, SCHEDULES: '10', EVERY_MS: '100' };
    const replica = spawnReplicaProcess(REPLICA, { ...vars, BACKPRESSURE: '1' }, children);
    await waitUntil(() => replica.ready(), 30_000, { stepMs: 50 });

    // a schedule every second, created now: the 500 seconds before its creation are backfillable
    const client = env.manager({ role: 'client' });
    await client.schedule({ name: 'tick' }, new IntervalTrigger(1), {
      id: 'bf',
      jobOptions: { removeOnComplete: true },
    }).saved;
    const to = Math.floor((await redisNow(env.redis)) / 1000) * 1000 - 1000;
    const from = to - OCCURRENCES * 1000;
    const backfiller = spawnReplicaProcess(
      BACKFILLER,
      { ...vars, ID: 'bf', FROM: String(from), TO: String(to), RATE: '200', STOP_AFTER: '100' },
      children,
    );
    await waitUntil(() => backfiller.out.includes('stopped '), 30_000, { stepMs: 20 });
    await sleep(STALL_MS);
    backfiller.child.kill('SIGCONT');
    await waitUntil(() => backfiller.out.includes('done '), 30_000, { stepMs: 50 });
    expect(backfiller.out).toContain(`done ${OCCURRENCES}`); // all judged to run

    // every backfilled occurrence has run; then a while for any second run
    const backfilled = () => [...runs.keys()].filter((t) => t >= from && t < to).length;
    await waitUntil(() => backfilled() >= OCCURRENCES, 60_000, { stepMs: 100 });
    await sleep(2000);
    const twice = [...runs].filter(([t, n]) => t >= from && t < to && n > 1).map(([t]) => t);
    expect(twice.length, `run twice: ${twice.length} of ${OCCURRENCES}`).toBe(0);
    expect(backfilled()).toBe(OCCURRENCES);
  }, 120_000);
});
