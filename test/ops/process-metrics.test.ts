import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, SchedulerManager } from '../../src/index.js';
import { FleetReader, joinFleet } from '../../src/ops/fleet-registry.js';
import { startProcessOps } from '../../src/ops/process-ops.js';
import { WorkerMetrics } from '../../src/ops/worker-metrics.js';
import { keys } from '../../src/store/keys/keys.js';
import { REDIS, TestBed } from '../queue/helpers.js';
import { parseExposition, total } from './scrape.js';

describe('worker metrics', () => {
  const beds: TestBed[] = [];
  afterEach(async () => {
    for (const b of beds.splice(0)) await b.cleanup();
  });

  it('counts runs by outcome (succeeded, retrying, failed, skipped), durations and skips; schedule label only when opted in', async () => {
    const bed = new TestBed();
    beds.push(bed);
    const manager = new SchedulerManager({ role: 'client', prefix: bed.prefix, connection: REDIS });
    manager.every(3600, { name: 'ok', queue: bed.queueName })(async () => undefined);
    manager.every(3600, { name: 'boom', queue: bed.queueName })(async () => {
      throw new Error('boom');
    });
    manager.every(3600, { name: 'slow', queue: bed.queueName, maxInstances: 1 })(
      async () => new Promise((r) => setTimeout(r, 400)),
    );
    const handle = await createWorker(manager, { queues: [bed.queueName], concurrency: 5 });
    const registry = new Registry();
    const metrics = new WorkerMetrics(registry, handle, { scheduleLabels: ['ok'] });
    try {
      await handle.ready();
      const t = Date.now();
      const jobs = await Promise.all([
        bed.enqueue('ok', { fireAt: t }),
        bed.enqueue('boom', { fireAt: t, opts: { attempts: 2 } }),
        bed.enqueue('slow', { fireAt: t }),
        bed.enqueue('slow', { fireAt: t + 1 }),
      ]);
      await bed.allSettled(jobs.map((j) => j.id));
      const q = bed.queueName;
      // A job's state in Redis turns final just before its worker emits the event the metrics count:
      // wait for the five outcomes (ok, boom retrying then failed, slow run and slow skipped).
      for (let i = 0; i < 100; i++) {
        const runs = total(parseExposition(await registry.metrics()), 'bullbeat_runs_total', { queue: q });
        if (runs >= 5) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const s = parseExposition(await registry.metrics());
      expect(total(s, 'bullbeat_runs_total', { queue: q, outcome: 'succeeded', schedule: 'ok' })).toBe(1);
      expect(total(s, 'bullbeat_runs_total', { queue: q, outcome: 'succeeded', schedule: 'other' })).toBe(1);
      expect(total(s, 'bullbeat_runs_total', { queue: q, outcome: 'retrying' })).toBe(1);
      expect(total(s, 'bullbeat_runs_total', { queue: q, outcome: 'failed' })).toBe(1);
      expect(total(s, 'bullbeat_runs_total', { queue: q, outcome: 'skipped' })).toBe(1);
      expect(total(s, 'bullbeat_skips_total', { queue: q, reason: 'overlap' })).toBe(1);
      expect(total(s, 'bullbeat_run_duration_seconds_count', { queue: q })).toBe(4);
      const slow = total(s, 'bullbeat_run_duration_seconds_sum', { queue: q, outcome: 'succeeded' });
      expect(slow).toBeGreaterThanOrEqual(0.35);
      expect(new Set(s.filter((x) => x.labels.schedule).map((x) => x.labels.schedule))).toEqual(
        new Set(['ok', 'other']),
      );
    } finally {
      metrics.close();
      await handle.close();
      await manager.close();
    }
  }, 60_000);
});

describe('fleet registry', () => {
  it('a member that leaves is gone at once; one that stops beating is dead after three beats; bad rows are ignored', async () => {
    const prefix = `fleet-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const redis = new Redis(REDIS);
    const reader = new FleetReader(redis, prefix);
    const { fleet, fleetBeats } = keys(prefix);
    const k = { members: fleet, beats: fleetBeats };
    try {
      const common = { prefix, connection: REDIS, heartbeatMs: 100, version: '9.9.9' };
      const replica = await joinFleet({ ...common, role: 'scheduler' });
      const worker = await joinFleet({ ...common, role: 'worker', queues: ['q'], handlers: ['b', 'a'] });
      await redis.hset(k.members, 'garbage', '{not json');
      let snap = await reader.snapshot();
      expect([snap.replicas, snap.workers]).toEqual([1, 1]);
      expect(snap.served).toEqual({ q: ['a', 'b'] });
      expect(snap.members.map((m) => m.id).sort()).toEqual([replica.id, worker.id].sort());
      expect(snap.members.every((m) => m.version === '9.9.9' && m.pid === process.pid)).toBe(true);
      await worker.leave();
      await worker.leave(); // twice is fine
      snap = await reader.snapshot();
      expect(snap.workers).toBe(0);
      expect(snap.members.map((m) => m.id)).toEqual([replica.id]);
      // Stop beating without leaving (as a killed process would): dead after 3 × 100 ms.
      await redis.zadd(k.beats, 0, replica.id);
      snap = await reader.snapshot();
      expect(snap.replicas).toBe(0);
      expect(snap.members[0]?.alive).toBe(false);
      // Its next beat brings it back (a process that stalled and recovered).
      await new Promise((r) => setTimeout(r, 250));
      expect((await reader.snapshot()).replicas).toBe(1);
      await replica.leave();
    } finally {
      await redis.del(k.members, k.beats);
      await redis.quit();
    }
  });

  it('each queue lists only the job names its live workers handle there; a member of an older bullbeat (no per-queue names) still counts on every queue', async () => {
    const bed = new TestBed();
    const { prefix, redis } = bed;
    const mail = bed.queueName;
    const reports = `${bed.queueName}-reports`;
    const reader = new FleetReader(redis, prefix);
    const { fleet, fleetBeats } = keys(prefix);
    const manager = new SchedulerManager({ role: 'client', prefix, connection: REDIS, defaultQueue: mail });
    manager.every(3600, { name: 'sendDigest' })(async () => undefined);
    manager.every(3600, { name: 'buildReport', queue: reports })(async () => undefined);
    await manager.start();
    const handle = await createWorker(manager, {});
    const ops = await startProcessOps({
      scheduler: manager,
      replica: false,
      worker: handle,
      heartbeatMs: 200,
    });
    try {
      let snap = await reader.snapshot();
      // one worker on both queues with both handlers: each name under its own queue only
      expect(snap.served).toEqual({ [mail]: ['sendDigest'], [reports]: ['buildReport'] });
      const stored = JSON.parse((await redis.hget(fleet, snap.members[0]?.id ?? '')) ?? '{}');
      expect(stored.handles).toEqual({ [mail]: ['sendDigest'], [reports]: ['buildReport'] });
      // a member as an older bullbeat wrote it: queues and handlers, no per-queue names
      const old = {
        role: 'worker',
        host: 'old',
        pid: 1,
        version: '0.9.0',
        queues: [mail],
        handlers: ['buildReport', 'legacy'],
        startedAt: 1,
        lastBeat: 1,
        heartbeatMs: 60_000,
      };
      await redis.hset(fleet, 'worker:old:1:abc', JSON.stringify(old));
      await redis.zadd(fleetBeats, Date.now() + 600_000, 'worker:old:1:abc');
      snap = await reader.snapshot();
      expect(snap.served).toEqual({
        [mail]: ['buildReport', 'legacy', 'sendDigest'],
        [reports]: ['buildReport'],
      });
      const oldMember = snap.members.find((m) => m.id === 'worker:old:1:abc');
      expect(oldMember?.handles).toBeUndefined();
      expect(oldMember?.alive).toBe(true);
    } finally {
      await ops.stop();
      await handle.close({ graceMs: 500 });
      await manager.close();
      const left = await redis.keys(`bull:${reports}*`);
      if (left.length > 0) await redis.del(...left);
      await bed.cleanup();
    }
  });
});
