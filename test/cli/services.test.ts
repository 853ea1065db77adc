import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REDIS, REDIS_URL } from '../redis-url.js';
import { assertBuilt, runBullbeat } from './run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from './spawn-bullbeat.js';

const JOBS = 'test/cli/fixtures/jobs.mjs';
let redis: Redis;
const running: RunningBullbeat[] = [];
const used: { prefix: string; queue: string }[] = [];

function deployment() {
  const d = { prefix: `cli-svc-${randomUUID()}`, queue: `cli-svc-q-${randomUUID()}` };
  used.push(d);
  return { ...d, env: { BULLBEAT_PREFIX: d.prefix, TEST_QUEUE: d.queue } };
}

function start(args: string[], env: Record<string, string>): RunningBullbeat {
  const proc = spawnBullbeat(args, { env });
  running.push(proc);
  return proc;
}

const ranKey = (prefix: string) => `{${prefix}}:bb:test:ran`;

async function waitForRuns(prefix: string, count: number, timeoutMs = 20_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ran = await redis.lrange(ranKey(prefix), 0, -1);
    if (ran.length >= count) return ran;
    if (Date.now() > deadline) throw new Error(`only ${ran.length} runs of ${count} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The URL the dashboard logged it listens on. */
function dashboardUrl(proc: RunningBullbeat): string {
  const m = /"url":"(http:\/\/[^"]+)"/.exec(proc.output());
  if (!m?.[1]) throw new Error(`no dashboard url in:\n${proc.output()}`);
  return m[1];
}

beforeAll(() => {
  assertBuilt();
  redis = new Redis(REDIS_URL);
});

afterEach(() => {
  for (const p of running.splice(0)) p.kill();
});

afterAll(async () => {
  for (const { prefix, queue } of used) {
    const keys = await redis.keys(`{${prefix}}*`);
    if (keys.length) await redis.del(...keys);
    const q = new Queue(queue, { connection: REDIS });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
  }
  await redis.quit();
});

describe('long-running commands', () => {
  it('scheduler and worker as separate processes: occurrences are enqueued by one and run by the other; SIGTERM exits 0', async () => {
    const { prefix, env } = deployment();
    const scheduler = start(['scheduler', JOBS], env);
    const worker = start(['worker', JOBS, '--concurrency', '2'], env);
    await scheduler.waitFor(/scheduler replica running/);
    await worker.waitFor(/worker running/);
    const ran = await waitForRuns(prefix, 3);
    const pids = new Set(ran.map((r) => Number(r.split(':')[2])));
    expect(pids).toEqual(new Set([worker.child.pid]));
    const fireAts = ran.map((r) => Number(r.split(':')[1]));
    expect(new Set(fireAts).size).toBe(fireAts.length);
    expect(fireAts.every((t) => t % 1000 === 0)).toBe(true);
    scheduler.child.kill('SIGTERM');
    worker.child.kill('SIGTERM');
    expect((await scheduler.exited).code).toBe(0);
    expect((await worker.exited).code).toBe(0);
    expect(worker.output()).toContain('"msg":"stopped cleanly"');
    // JSON logs when stdout is not a terminal
    for (const line of scheduler.output().trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('worker --queues limits the queues it consumes, and says what nothing handles there', async () => {
    const { env } = deployment();
    // a schedule on one of those queues whose job name no worker has a handler for
    const add = await runBullbeat(
      ['schedule:add', '--name', 'nobodyHandles', '--queue', 'only-this', '--every', '1h'],
      { env },
    );
    expect(add.code, add.stderr).toBe(0);
    const worker = start(['worker', JOBS, '--queues', 'only-this,and-that'], env);
    await worker.waitFor(/worker ready/);
    expect(worker.output()).toMatch(/"queues":\["only-this","and-that"\]/);
    await worker.waitFor(/no live worker handles/);
    expect(worker.output()).toMatch(/on \\"only-this\\", no live worker handles \\"nobodyHandles\\"/);
    expect(worker.output()).toMatch(/no schedule uses \\"and-that\\"/);
    worker.child.kill('SIGINT');
    expect((await worker.exited).code).toBe(0);
  });

  it('dev: scheduler, worker and dashboard in one process; the dashboard answers; SIGINT exits 0', async () => {
    const { prefix, env } = deployment();
    const dev = start(['dev', JOBS, '--open', '--port', '0'], env);
    await dev.waitFor(/bullbeat dev: running/);
    const url = dashboardUrl(dev);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const api = (await (await fetch(`${url}/api/schedules`)).json()) as { items: { id: string }[] };
    expect(api.items.map((i) => i.id).sort()).toEqual(['report', 'tick']);
    await waitForRuns(prefix, 2);
    dev.child.kill('SIGINT');
    expect((await dev.exited).code).toBe(0);
    expect(dev.output()).toContain('"msg":"stopped cleanly"');
  });

  it('dashboard without credentials refuses to start (exit 2); with a token it serves and asks for it', async () => {
    const { env } = deployment();
    // a refusal ends the command before it owns the process: run in this process
    const refused = await runBullbeat(['dashboard', '--port', '0'], { env, spawn: false });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^bullbeat: BULLBEAT_DASHBOARD_TOKEN: the dashboard has no credentials/);
    const token = randomUUID();
    const dash = start(['dashboard', '--port', '0'], { ...env, BULLBEAT_DASHBOARD_TOKEN: token });
    await dash.waitFor(/bullbeat dashboard: listening/);
    const url = dashboardUrl(dash);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/api/schedules`)).status).toBe(401);
    const ok = await fetch(`${url}/api/schedules`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    dash.child.kill('SIGTERM');
    expect((await dash.exited).code).toBe(0);
  });

  it('dev on a non-loopback host without credentials: exit 2 before anything starts (Redis not even asked)', async () => {
    const run = await runBullbeat(['dev', JOBS, '--host', '0.0.0.0'], {
      env: { ...deployment().env, REDIS_URL: 'redis://127.0.0.1:1' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^bullbeat: BULLBEAT_DASHBOARD_TOKEN: the dashboard has no credentials: .*\(--open\)\n$/,
    );
    const noDashboard = await runBullbeat(['dev', JOBS, '--no-dashboard'], {
      env: { ...deployment().env, REDIS_URL: 'redis://127.0.0.1:1' },
    });
    expect(noDashboard.code).toBe(3);
  });

  it('a dashboard port in use: exit 2 naming the setting', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const run = await runBullbeat(['dashboard', '--open'], {
        env: { ...deployment().env, PORT: String(port) },
        spawn: false,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(`bullbeat: PORT: port ${port} is already in use on 127.0.0.1\n`);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
