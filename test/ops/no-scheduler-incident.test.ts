import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { AlertStore } from '../../src/store/deployment/alert-store.js';
import { assertBuilt } from '../cli/run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from '../cli/spawn-bullbeat.js';
import { REDIS_URL } from '../redis-url.js';
import { type Received, startReceiver } from '../scheduler/alerts/receiver.js';
import { waitUntil } from '../wait-until.js';

// "No scheduler replica alive": the only replica (a real `bullbeat scheduler` process) is SIGKILLed;
// the worker (a real `bullbeat worker` process) sees it dead in the fleet, opens the incident and
// delivers it; a replica started again resolves it.

const JOBS = 'test/ops/fixtures/ops-jobs.mjs';
const prefix = `nosched-${randomUUID()}`;

describe('the no-scheduler incident', () => {
  const running: RunningBullbeat[] = [];
  const redis = new Redis(REDIS_URL);
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterAll(async () => {
    for (const p of running) p.kill();
    await Promise.all(running.map((p) => p.exited));
    await receiver?.close();
    for (const pattern of [`{${prefix}}*`, `bull:${prefix}*`]) {
      const found = await redis.keys(pattern);
      if (found.length > 0) await redis.unlink(...found);
    }
    await redis.quit();
  });

  it('opens once when the last replica dies, delivered by a worker, and resolves once when one is back', async () => {
    assertBuilt();
    receiver = await startReceiver();
    const env = {
      BULLBEAT_PREFIX: prefix,
      OPS_QUEUE: prefix,
      BULLBEAT_HEARTBEAT_MS: '300',
      LOG_LEVEL: 'info',
    };
    // the scheduler replicas are told the notifier by their environment, the worker by its flag: with
    // the replica dead, a delivery is the worker's, and the flag is what gave it the notifier
    const notifier = `ops=webhook:${receiver.url}/hook`;
    const spawn = (role: 'scheduler' | 'worker') => {
      const p =
        role === 'worker'
          ? spawnBullbeat([role, JOBS, '--notifier', notifier], { env })
          : spawnBullbeat([role, JOBS], { env: { ...env, BULLBEAT_NOTIFIERS: notifier } });
      running.push(p);
      return p;
    };
    const scheduler = spawn('scheduler');
    const worker = spawn('worker');
    await Promise.all([
      scheduler.waitFor(/scheduler replica running/, 30_000),
      worker.waitFor(/"queues"|worker running|running/, 30_000),
    ]);
    const alerts = new AlertStore(redis, prefix);
    const noScheduler = (r: Received) => r.json?.incident?.cause === 'no-scheduler';
    // alive: nothing opens
    await new Promise((r) => setTimeout(r, 2000));
    expect((await alerts.incidents()).filter((i) => i.cause === 'no-scheduler')).toEqual([]);

    scheduler.kill();
    await scheduler.exited;
    await waitUntil(() => receiver!.got.some((r) => noScheduler(r) && r.json.event === 'opened'), 20_000, {
      stepMs: 100,
    });
    const [opened] = (await alerts.incidents({ open: true })).filter((i) => i.cause === 'no-scheduler');
    expect(opened).toMatchObject({ scheduleId: '*', status: 'open', notify: ['ops'] });
    expect(opened!.why).toMatch(/no scheduler replica alive: 1 known, none beating; the last, scheduler:/);
    // dead 3 beats (900 ms) after its last beat, opened within the check after that
    expect(opened!.openedAt).toBeGreaterThanOrEqual(opened!.occurrence);
    // still down: no second opening, whichever process looks
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.got.filter(noScheduler).map((r) => r.json.event)).toEqual(['opened']);

    const again = spawn('scheduler');
    await again.waitFor(/scheduler replica running/, 30_000);
    await waitUntil(() => receiver!.got.some((r) => noScheduler(r) && r.json.event === 'resolved'), 20_000, {
      stepMs: 100,
    });
    await new Promise((r) => setTimeout(r, 2000));
    const told = receiver.got.filter(noScheduler);
    expect(told.map((r) => r.json.event)).toEqual(['opened', 'resolved']);
    expect(new Set(told.map((r) => r.json.incident.id))).toEqual(new Set([opened!.id]));
    expect(told[1]!.json.incident.resolvedWhy).toMatch(/scheduler replica scheduler:.* is alive/);
    expect((await alerts.incidents({ open: true })).filter((i) => i.cause === 'no-scheduler')).toEqual([]);
  }, 120_000);
});
