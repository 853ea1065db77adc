import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { AlertStore } from '../../src/store/deployment/alert-store.js';
import { keys } from '../../src/store/keys/index.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { assertBuilt } from '../cli/run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from '../cli/spawn-bullbeat.js';
import { REDIS_URL } from '../redis-url.js';
import { type Received, startReceiver } from '../scheduler/alerts/receiver.js';
import { waitUntil } from '../wait-until.js';

// A late occurrence that was never enqueued: the only scheduler replica (a real `bullbeat scheduler`
// process) is stalled (SIGSTOP) past a fire time, so that occurrence has no record and no job. The
// worker (a real `bullbeat worker` process) checks the expectations in its turn, judges `startedWithin`
// against the time the trigger expects, opens `late` and delivers it; woken, the replica catches up, a
// run starts and the incident resolves.

const JOBS = 'test/ops/fixtures/late-jobs.mjs';
const prefix = `neverenq-${randomUUID()}`;

describe('a late occurrence never enqueued', () => {
  const running: RunningBullbeat[] = [];
  const redis = new Redis(REDIS_URL);
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterAll(async () => {
    for (const p of running) {
      p.child.kill('SIGCONT');
      p.kill();
    }
    await Promise.all(running.map((p) => p.exited));
    await receiver?.close();
    for (const pattern of [`{${prefix}}*`, `bull:${prefix}*`]) {
      const found = await redis.keys(pattern);
      if (found.length > 0) await redis.unlink(...found);
    }
    await redis.quit();
  });

  it('opens late from the expected fire time while the replica is stalled, resolved when a run starts', async () => {
    assertBuilt();
    receiver = await startReceiver();
    const env = {
      BULLBEAT_PREFIX: prefix,
      OPS_QUEUE: prefix,
      BULLBEAT_NOTIFIERS: `ops=webhook:${receiver.url}/hook`,
      LOG_LEVEL: 'info',
    };
    const scheduler = spawnBullbeat(['scheduler', JOBS], { env });
    const worker = spawnBullbeat(['worker', JOBS], { env });
    running.push(scheduler, worker);
    await scheduler.waitFor(/scheduler replica running/, 30_000);
    await worker.waitFor(/running/, 30_000);
    const client = new Redis(REDIS_URL);
    const alerts = new AlertStore(client, prefix);
    const late = (r: Received) => r.json?.incident?.cause === 'late';
    // healthy: runs start on time, nothing opens
    await new Promise((r) => setTimeout(r, 4000));
    expect(receiver.got.filter(late)).toEqual([]);

    scheduler.child.kill('SIGSTOP');
    const stalledAt = Date.now();
    await waitUntil(() => receiver!.got.some((r) => late(r) && r.json.event === 'opened'), 20_000, {
      stepMs: 100,
    });
    const openedAfterMs = Date.now() - stalledAt;
    const [incident] = (await alerts.incidents({ open: true })).filter((i) => i.cause === 'late');
    expect(incident!.scheduleId).toBe('beat');
    expect(incident!.why).toMatch(
      /^not started \d+\.\d s after its fire time .* \(startedWithin 2s\); it was never enqueued: there is no record of it/,
    );
    // nothing of that occurrence in the records: it really was never enqueued
    const history = await new RunHistory(client, keys(prefix), 100).list('beat');
    expect(history.length).toBeGreaterThan(0);
    expect(history.filter((r) => r.fireAt >= incident!.occurrence)).toEqual([]);
    // opened within startedWithin + ~1 s of that fire time, by Redis's clock
    expect(incident!.openedAt - (incident!.occurrence + 2000)).toBeLessThanOrEqual(1500);

    scheduler.child.kill('SIGCONT');
    await waitUntil(() => receiver!.got.some((r) => late(r) && r.json.event === 'resolved'), 30_000, {
      stepMs: 100,
    });
    await new Promise((r) => setTimeout(r, 1500));
    const told = receiver.got.filter(late);
    expect(told.map((r) => r.json.event)).toEqual(['opened', 'resolved']);
    expect(new Set(told.map((r) => r.json.incident.id))).toEqual(new Set([incident!.id]));
    console.log(`never enqueued: late opened ${openedAfterMs} ms after the stall began`);
    await client.quit();
  }, 120_000);
});
