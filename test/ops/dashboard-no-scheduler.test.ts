import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { AlertStore } from '../../src/store/deployment/alert-store.js';
import { assertBuilt } from '../cli/run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from '../cli/spawn-bullbeat.js';
import { REDIS_URL } from '../redis-url.js';
import { type Received, startReceiver } from '../scheduler/alerts/receiver.js';
import { waitUntil } from '../wait-until.js';

// "No scheduler replica alive" when the dashboard is the only survivor: a real `bullbeat scheduler`
// (no notifier of its own) is SIGKILLed beside a real `bullbeat dashboard --notifier ...` and no worker;
// the dashboard sees the replica dead in the fleet, opens the incident and delivers it; a replica
// started again resolves it, and the dashboard delivers that too, once.

const JOBS = 'test/ops/fixtures/ops-jobs.mjs';
const prefix = `dashnosched-${randomUUID()}`;

describe('the dashboard watches for no-scheduler', () => {
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

  it('with the dashboard the only process left: one opened delivery, one resolved when a replica is back', async () => {
    assertBuilt();
    receiver = await startReceiver();
    const env = {
      BULLBEAT_PREFIX: prefix,
      OPS_QUEUE: prefix,
      BULLBEAT_HEARTBEAT_MS: '300',
      BULLBEAT_DASHBOARD_TOKEN: randomUUID(),
      LOG_LEVEL: 'info',
    };
    // the replicas have no notifier: every delivery is the dashboard's, by its --notifier flag
    const startScheduler = () => {
      const p = spawnBullbeat(['scheduler', JOBS], { env });
      running.push(p);
      return p;
    };
    const scheduler = startScheduler();
    await scheduler.waitFor(/scheduler replica running/, 30_000);
    const dashboard = spawnBullbeat(
      ['dashboard', '--port', '0', '--notifier', `ops=webhook:${receiver.url}/hook`],
      { env },
    );
    running.push(dashboard);
    await dashboard.waitFor(/bullbeat dashboard: listening/, 30_000);
    const alerts = new AlertStore(redis, prefix);
    const noScheduler = (r: Received) => r.json?.incident?.cause === 'no-scheduler';
    // alive: nothing opens
    await new Promise((r) => setTimeout(r, 2000));
    expect((await alerts.incidents()).filter((i) => i.cause === 'no-scheduler')).toEqual([]);

    scheduler.kill();
    await scheduler.exited;
    await waitUntil(() => receiver!.got.some((r) => noScheduler(r) && r.json.event === 'opened'), 20_000, {
      stepMs: 100,
      what: 'the opened delivery',
    });
    const [opened] = (await alerts.incidents({ open: true })).filter((i) => i.cause === 'no-scheduler');
    expect(opened).toMatchObject({ scheduleId: '*', status: 'open', notify: ['ops'] });
    expect(opened!.why).toMatch(/no scheduler replica alive: 1 known, none beating; the last, scheduler:/);
    expect(dashboard.output()).toMatch(/bullbeat: incident opened/);
    // still down: no second opening, no second delivery
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.got.filter(noScheduler).map((r) => r.json.event)).toEqual(['opened']);

    const again = startScheduler();
    await again.waitFor(/scheduler replica running/, 30_000);
    await waitUntil(() => receiver!.got.some((r) => noScheduler(r) && r.json.event === 'resolved'), 20_000, {
      stepMs: 100,
      what: 'the resolved delivery',
    });
    await new Promise((r) => setTimeout(r, 2000));
    const told = receiver.got.filter(noScheduler);
    expect(told.map((r) => r.json.event)).toEqual(['opened', 'resolved']);
    expect(told.map((r) => r.headers['x-bullbeat-delivery'])).toEqual([
      `${opened!.id}|ops|opened`,
      `${opened!.id}|ops|resolved`,
    ]);
    expect(told[1]!.json.incident.resolvedWhy).toMatch(/scheduler replica scheduler:.* is alive/);
    expect((await alerts.incidents({ open: true })).filter((i) => i.cause === 'no-scheduler')).toEqual([]);
    const [delivered] = await alerts.deliveriesOf([opened!]);
    expect(delivered).toMatchObject({ notifier: 'ops', status: 'sent' });
    // the dashboard serves throughout
    const url = /"url":"(http:\/\/[^"]+)"/.exec(dashboard.output())![1]!;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  }, 120_000);
});
