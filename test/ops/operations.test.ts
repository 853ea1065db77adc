import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { IntervalTrigger, SchedulerManager } from '../../src/index.js';
import { assertBuilt, root, runBullbeat } from '../cli/run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from '../cli/spawn-bullbeat.js';
import { REDIS_URL } from '../redis-url.js';
import { metricNamesIn, parseExposition, type Sample, total } from './scrape.js';

// The compose shape: a scheduler replica, a worker and the dashboard as separate processes, each
// scraped on its own /metrics; then the only replica is killed.

const JOBS = 'test/ops/fixtures/ops-jobs.mjs';
const HEARTBEAT_MS = 300;
const prefix = `ops-${randomUUID()}`;
const queue = `ops-${randomUUID()}`;
const orphanQueue = `ops-orphan-${randomUUID()}`;
const token = randomUUID();
const env = {
  BULLBEAT_PREFIX: prefix,
  OPS_QUEUE: queue,
  BULLBEAT_HEARTBEAT_MS: String(HEARTBEAT_MS),
  BULLBEAT_DASHBOARD_TOKEN: token,
  LOG_LEVEL: 'info',
};

const urlIn = (proc: RunningBullbeat, pattern: RegExp) => pattern.exec(proc.output())?.[1] as string;
const scrape = async (url: string, auth = false): Promise<Sample[]> => {
  const res = await fetch(`${url}/metrics`, auth ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
};
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('operations: metrics from every process, fleet, status', () => {
  let scheduler: RunningBullbeat;
  let worker: RunningBullbeat;
  let dashboard: RunningBullbeat;
  let schedulerUrl: string;
  let workerUrl: string;
  let dashboardUrl: string;
  const client = new SchedulerManager({ role: 'client', prefix, connection: REDIS_URL });
  const scraped: Sample[] = [];

  beforeAll(async () => {
    assertBuilt();
    const metrics = ['--metrics-port', '0', '--metrics-host', '127.0.0.1'];
    scheduler = spawnBullbeat(['scheduler', JOBS, ...metrics], { env });
    worker = spawnBullbeat(['worker', JOBS, ...metrics], { env });
    dashboard = spawnBullbeat(['dashboard', '--port', '0', '--host', '127.0.0.1'], { env });
    await Promise.all([
      scheduler.waitFor(/scheduler replica running/, 30_000),
      worker.waitFor(/worker running/, 30_000),
      dashboard.waitFor(/dashboard: listening/, 30_000),
    ]);
    schedulerUrl = urlIn(scheduler, /"metrics":"(http:\/\/[^"]+)\/metrics"/);
    workerUrl = urlIn(worker, /"metrics":"(http:\/\/[^"]+)\/metrics"/);
    dashboardUrl = urlIn(dashboard, /"url":"(http:\/\/[^"]+)"/);
    // A schedule whose queue no worker serves: its occurrences are enqueued and never run.
    await client.schedule({ queue: orphanQueue, name: 'nobody-runs-me' }, new IntervalTrigger(1), {
      id: 'unserved',
    }).saved;
  }, 60_000);

  afterAll(async () => {
    for (const p of [scheduler, worker, dashboard]) p?.kill();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`{${prefix}}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await client.close();
    for (const name of [queue, orphanQueue]) {
      const q = new Queue(name, { connection: { url: REDIS_URL } });
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
    }
  });

  it('the scheduler replica serves its own /metrics, /healthz and /readyz', async () => {
    const samples = await until(
      () => scrape(schedulerUrl),
      (s) => total(s, 'bullbeat_fires_total', { kind: 'scheduled' }) >= 4,
      20_000,
    );
    scraped.push(...samples);
    expect(total(samples, 'bullbeat_fires_total', { kind: 'scheduled' })).toBeGreaterThanOrEqual(4);
    const count = total(samples, 'bullbeat_fire_lateness_seconds_count');
    expect(count).toBeGreaterThanOrEqual(4);
    // Sensible lateness: the mean is well under the misfire grace (generous: a shared 2-core machine).
    expect(total(samples, 'bullbeat_fire_lateness_seconds_sum') / count).toBeLessThan(5);
    expect(total(samples, 'bullbeat_scheduler_running')).toBe(1);
    expect(samples.some((s) => s.name === 'process_cpu_seconds_total')).toBe(true);
    expect(samples.some((s) => 'schedule' in s.labels)).toBe(false); // no schedule id unless opted in
    expect((await fetch(`${schedulerUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${schedulerUrl}/readyz`)).status).toBe(200);
  }, 30_000);

  it('the worker serves runs by outcome, durations and runs in flight', async () => {
    const samples = await until(
      () => scrape(workerUrl),
      (s) => total(s, 'bullbeat_runs_total', { queue, outcome: 'succeeded' }) >= 3,
      20_000,
    );
    scraped.push(...samples);
    expect(total(samples, 'bullbeat_runs_total', { queue, outcome: 'succeeded' })).toBeGreaterThanOrEqual(3);
    const count = total(samples, 'bullbeat_run_duration_seconds_count', { queue, outcome: 'succeeded' });
    expect(count).toBeGreaterThanOrEqual(3);
    // The handler sleeps 20 ms: the mean duration is at least that, and not absurd.
    const mean = total(samples, 'bullbeat_run_duration_seconds_sum', { queue }) / count;
    expect(mean).toBeGreaterThanOrEqual(0.015);
    expect(mean).toBeLessThan(5);
    expect(samples.some((s) => s.name === 'bullbeat_runs_in_flight')).toBe(true);
    expect(total(samples, 'bullbeat_lease_losses_total')).toBe(0);
    expect((await fetch(`${workerUrl}/readyz`)).status).toBe(200);
  }, 30_000);

  it('the dashboard serves the deployment gauges: replicas, workers, late, failing, queue depth', async () => {
    const samples = await until(
      () => scrape(dashboardUrl, true),
      (s) => total(s, 'bullbeat_schedules_failing') >= 1,
      20_000,
    );
    scraped.push(...samples);
    expect(total(samples, 'bullbeat_replicas')).toBe(1);
    expect(total(samples, 'bullbeat_workers')).toBe(1);
    // The schedule nobody serves is failing; the served one is not.
    expect(total(samples, 'bullbeat_schedules_failing')).toBe(1);
    expect(total(samples, 'bullbeat_schedules_late')).toBe(0);
    expect(total(samples, 'bullbeat_schedules', { status: 'active' })).toBe(2);
    // nobody serves it: its jobs wait (committed ahead, in the delayed set: no worker promotes them)
    const orphaned =
      total(samples, 'bullbeat_queue_jobs', { queue: orphanQueue, state: 'waiting' }) +
      total(samples, 'bullbeat_queue_jobs', { queue: orphanQueue, state: 'delayed' });
    expect(orphaned).toBeGreaterThan(0);
    expect(total(samples, 'bullbeat_queue_jobs', { queue, state: 'completed' })).toBeGreaterThan(0);
  }, 30_000);

  it('the fleet page and API show the replica, the worker and the job names served', async () => {
    const headers = { authorization: `Bearer ${token}` };
    const api = (await (await fetch(`${dashboardUrl}/api/fleet`, { headers })).json()) as {
      replicas: number;
      workers: number;
      served: Record<string, string[]>;
      members: { role: string; pid: number; alive: boolean; queues: string[] }[];
      health: { failingIds: string[] };
    };
    expect(api.replicas).toBe(1);
    expect(api.served).toEqual({ [queue]: ['ops-tick'] });
    expect(api.members.find((m) => m.role === 'scheduler')?.pid).toBe(scheduler.child.pid);
    expect(api.members.find((m) => m.role === 'worker')?.pid).toBe(worker.child.pid);
    expect(api.health.failingIds).toEqual(['unserved']);
    const page = await (await fetch(`${dashboardUrl}/fleet`, { headers })).text();
    expect(page).toContain(`data-replicas="1"`);
    expect(page).toContain(`<tr data-queue="${queue}"><td>${queue}</td><td>ops-tick</td></tr>`);
    // The create form knows which job names a live worker serves (it warns about the others).
    const form = await (await fetch(`${dashboardUrl}/new`, { headers })).text();
    expect(form).toContain('id="served-warning"');
    expect(form).toContain(`data-served="{&quot;${queue}&quot;:[&quot;ops-tick&quot;]}"`);
  });

  it('bullbeat status: exit 0 with a replica alive and nothing late', async () => {
    const run = await runBullbeat(['status'], { env });
    expect(run.stdout).toContain('1 scheduler replica(s) alive, 1 worker(s) alive');
    expect(run.stdout).toContain('failing: unserved');
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it('alerts.yml and the Grafana dashboard use only metrics found in the live scrape', () => {
    const names = new Set(scraped.map((s) => s.name));
    const alerts = parse(readFileSync(join(root, 'deploy/prometheus/alerts.yml'), 'utf8')) as {
      groups: { rules: { alert: string; expr: string }[] }[];
    };
    const rules = alerts.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'BullbeatNoSchedulerReplica',
        'BullbeatSchedulesLate',
        'BullbeatSchedulesFailing',
        'BullbeatFireLatenessHigh',
        'BullbeatSchedulesErrored',
      ]),
    );
    const grafana = JSON.parse(
      readFileSync(join(root, 'deploy/grafana/bullbeat-dashboard.json'), 'utf8'),
    ) as { panels: { title: string; targets: { expr: string }[] }[] };
    const exprs = [
      ...rules.map((r) => [r.alert, r.expr] as const),
      ...grafana.panels.flatMap((p) => p.targets.map((t) => [p.title, t.expr] as const)),
    ];
    expect(exprs.length).toBeGreaterThan(15);
    for (const [where, expr] of exprs) {
      const used = metricNamesIn(expr);
      expect(used.length, `${where}: ${expr}`).toBeGreaterThan(0);
      for (const name of used) expect(names.has(name), `${where} uses ${name}`).toBe(true);
    }
  });

  it('killing the only scheduler: bullbeat_replicas drops to 0 and bullbeat status exits non-zero', async () => {
    scheduler.child.kill('SIGKILL');
    const killedAt = Date.now();
    const samples = await until(
      () => scrape(dashboardUrl, true),
      (s) => total(s, 'bullbeat_replicas') === 0,
      15_000,
    );
    expect(total(samples, 'bullbeat_replicas')).toBe(0);
    // Dead after three missed heartbeats (900 ms here), plus the dashboard's cache; generous bound.
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    const run = await runBullbeat(['status'], { env });
    expect(run.code, run.stdout + run.stderr).toBe(5);
    expect(run.stdout).toContain('NOT OK: no scheduler replica alive');
    const json = await runBullbeat(['status', '--json'], { env });
    expect(json.code).toBe(5);
    const body = JSON.parse(json.stdout) as { replicas: number; members: { role: string; alive: boolean }[] };
    expect(body.replicas).toBe(0);
    expect(body.members.find((m) => m.role === 'scheduler')?.alive).toBe(false);
    // Nothing enqueues any more: the schedules become late.
    const late = await until(
      () => scrape(dashboardUrl, true),
      (s) => total(s, 'bullbeat_schedules_late') >= 2,
      15_000,
    );
    expect(total(late, 'bullbeat_schedules_late')).toBe(2);
  }, 60_000);
});
