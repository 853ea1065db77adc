// pauseOnFailure: after N final failures in a row the schedule pauses itself, atomically with the
// outcome that made N (finish-runs): status `p`, out of `due`, a note naming the last error in the
// shared notes hash, `stop:<id>` on the wake channel, an event and a metric. A success resets the count;
// a failure BullMQ will retry does not count. A schedule without pauseOnFailure keeps no streak: its
// runs neither reset nor count it.
import { Redis } from 'ioredis';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerMetrics } from '../../src/ops/worker-metrics.js';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import type { RunContext } from '../../src/queue/pipeline.js';
import type { PausedOnFailureEvent } from '../../src/queue/run-results.js';
import { formatState, parseState, StateCode } from '../../src/store/forms/schedule-state.js';
import { keys } from '../../src/store/keys/keys.js';
import { AuditTrail } from '../../src/store/reads/audit-trail.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { waitUntil } from '../wait-until.js';
import { REDIS, TestBed } from './helpers.js';
import { StandInScheduler } from './stand-in-scheduler.js';

const silent = pino({ level: 'silent' });
let bed: TestBed;
let handle: WorkerHandle | undefined;
let subscriber: Redis | undefined;

afterEach(async () => {
  await handle?.close({ graceMs: 500 });
  handle = undefined;
  await subscriber?.quit();
  subscriber = undefined;
  await bed.cleanup();
});

async function settled(jobId: string | undefined) {
  return waitUntil(async () => {
    const state = await bed.queue.getJobState(jobId as string);
    return state === 'completed' || state === 'failed' ? state : undefined;
  }, 15_000);
}

describe('pauseOnFailure', () => {
  it('pauses the schedule after N final failures in a row, with a note, an event, a metric and stop:<id>', async () => {
    bed = new TestBed();
    const k = keys(bed.prefix);
    const history = new RunHistory(bed.redis, k);
    // An active schedule, due later (what the scheduler stores).
    await bed.redis.hset(
      k.state,
      'p',
      formatState({
        status: StateCode.active,
        fired: 4,
        lastFireAt: 4,
        createdAt: 0,
        fingerprint: 'f',
        source: 'runtime',
      }),
    );
    await bed.redis.zadd(k.due, Date.now() + 3_600_000, 'p');
    subscriber = new Redis(REDIS);
    const wake: string[] = [];
    subscriber.on('message', (_c: string, m: string) => wake.push(m));
    await subscriber.subscribe(k.wake);

    const scheduler = new StandInScheduler(bed.prefix, [bed.queueName]).register('p', (ctx: RunContext) => {
      if (ctx.fireAt === 2) return 'fine';
      throw new Error(`boom ${ctx.fireAt}`);
    });
    handle = await createWorker(scheduler, { queues: [bed.queueName], concurrency: 1, logger: silent });
    await handle.ready();
    const registry = new Registry();
    const metrics = new WorkerMetrics(registry, handle);
    const events: PausedOnFailureEvent[] = [];
    handle.events.on('pausedOnFailure', (e: PausedOnFailureEvent) => events.push(e));

    const run = { maxInstances: 1, coalesce: true, pauseOnFailure: 2 };
    // fail, succeed (resets), fail, fail with a retry (the retried attempt does not count), fail: paused.
    for (const fireAt of [1, 2, 3])
      expect(await settled((await bed.enqueue('p', { fireAt, run })).id)).toBeTruthy();
    expect(parseState(await bed.redis.hget(k.state, 'p'))?.status).toBe(StateCode.active);
    expect(await bed.redis.hget(k.counts('p'), 'failstreak')).toBe('1');
    const retried = await bed.enqueue('p', { fireAt: 4, run, opts: { attempts: 2 } });
    expect(await settled(retried.id)).toBe('failed');

    const paused = parseState(await bed.redis.hget(k.state, 'p'));
    expect(paused?.status).toBe(StateCode.paused);
    expect(paused?.fired).toBe(4); // every other field as it was
    expect(await bed.redis.zscore(k.due, 'p')).toBeNull();
    const note = JSON.parse((await bed.redis.hget(k.pauseNotes, 'p')) as string);
    expect(note).toEqual({
      note: 'paused after 2 failed runs in a row; last error: boom 4',
      by: 'pauseOnFailure',
      at: expect.any(Number),
    });
    // its audit entry, written by the same script as the pause
    expect(await new AuditTrail(bed.redis, k).list('p')).toEqual([
      expect.objectContaining({ op: 'pause', actor: 'bullbeat', source: 'runtime', note: note.note }),
    ]);
    expect(await history.get('p', 4)).toMatchObject({ outcome: 'failed', error: 'boom 4', attempts: 2 });
    expect(events).toEqual([
      expect.objectContaining({
        scheduleId: 'p',
        fireAt: 4,
        failures: 2,
        note: note.note,
        queue: bed.queueName,
      }),
    ]);
    expect(scheduler.events.map((e) => e.event)).toContain('pausedOnFailure');
    await waitUntil(() => wake.includes('stop:p'), 5000, { what: 'stop:p on the wake channel' });
    expect(await registry.getSingleMetricAsString('bullbeat_paused_on_failure_total')).toContain(
      `bullbeat_paused_on_failure_total{queue="${bed.queueName}"} 1`,
    );
    metrics.close();
  });

  it('a schedule that is not active is left as it is, and without pauseOnFailure nothing pauses', async () => {
    bed = new TestBed();
    const k = keys(bed.prefix);
    const row = (status: StateCode) =>
      formatState({ status, fired: 0, lastFireAt: null, createdAt: 0, fingerprint: 'f', source: 'runtime' });
    await bed.redis.hset(k.state, 'done', row(StateCode.completed), 'free', row(StateCode.active));
    const scheduler = new StandInScheduler(bed.prefix, [bed.queueName])
      .register('done', () => {
        throw new Error('x');
      })
      .register('free', () => {
        throw new Error('y');
      });
    handle = await createWorker(scheduler, { queues: [bed.queueName], concurrency: 1, logger: silent });
    await handle.ready();
    const jobs = [
      await bed.enqueue('done', { fireAt: 1, run: { pauseOnFailure: 1 } }),
      await bed.enqueue('free', { fireAt: 1 }),
      await bed.enqueue('free', { fireAt: 2 }),
    ];
    await bed.allSettled(jobs.map((j) => j.id));
    expect(parseState(await bed.redis.hget(k.state, 'done'))?.status).toBe(StateCode.completed);
    expect(parseState(await bed.redis.hget(k.state, 'free'))?.status).toBe(StateCode.active);
    expect(await bed.redis.hlen(k.pauseNotes)).toBe(0);
  });

  it('without pauseOnFailure no streak is written: a success leaves one in place, a failure counts none', async () => {
    bed = new TestBed();
    const k = keys(bed.prefix);
    // a streak planted as if left by an earlier definition: a write on success (HDEL) would remove it
    await bed.redis.hset(k.counts('ok'), 'failstreak', '7');
    const scheduler = new StandInScheduler(bed.prefix, [bed.queueName])
      .register('ok', () => 'fine')
      .register('bad', () => {
        throw new Error('z');
      });
    handle = await createWorker(scheduler, { queues: [bed.queueName], concurrency: 1, logger: silent });
    await handle.ready();
    const jobs = [
      await bed.enqueue('ok', { fireAt: 1 }),
      await bed.enqueue('ok', { fireAt: 2, run: { maxInstances: 1, coalesce: true } }),
      await bed.enqueue('bad', { fireAt: 1 }),
      await bed.enqueue('bad', { fireAt: 2 }),
    ];
    await bed.allSettled(jobs.map((j) => j.id));
    const history = new RunHistory(bed.redis, k);
    expect(await history.get('ok', 2)).toMatchObject({ outcome: 'succeeded' });
    expect(await history.get('bad', 2)).toMatchObject({ outcome: 'failed' });
    expect(await bed.redis.hget(k.counts('ok'), 'failstreak')).toBe('7');
    expect(await bed.redis.hget(k.counts('bad'), 'failstreak')).toBeNull();
    expect(await bed.redis.hget(k.counts('bad'), 'errors')).toBe('2');
  });
});
