import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { assertBuilt, closedPort, linkNodeModules, root } from '../cli/run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from '../cli/spawn-bullbeat.js';
import { REDIS, REDIS_URL } from '../redis-url.js';

// Docker cannot run here, so the compose file is tested in two steps: its structure, then the very
// commands it names (2 schedulers, 2 workers, the dashboard) started as plain processes on loopback
// against a private redis-server started with the compose file's Redis arguments.

interface Service {
  build?: string;
  image?: string;
  command: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  ports?: string[];
  expose?: string[];
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
}

const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;
const BULLBEAT = ['scheduler', 'worker', 'dashboard'] as const;

describe('docker-compose.yml', () => {
  it('has Redis with AOF, noeviction and a health check, on a volume', () => {
    const redis = services.redis as Service;
    expect(redis.command[0]).toBe('redis-server');
    const args = redis.command.join(' ');
    expect(args).toContain('--appendonly yes');
    expect(args).toContain('--maxmemory-policy noeviction');
    expect(redis.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(compose.volumes).toHaveProperty('redis-data');
  });

  it('runs 2 scheduler replicas, 2 workers and the dashboard on port 3000, all from the bullbeat image', () => {
    expect(services.scheduler?.deploy?.replicas).toBe(2);
    expect(services.worker?.deploy?.replicas).toBe(2);
    expect(services.scheduler?.command.slice(0, 1)).toEqual(['scheduler']);
    expect(services.worker?.command.slice(0, 1)).toEqual(['worker']);
    expect(services.dashboard?.command).toEqual(['dashboard', '--port', '3000']);
    expect(services.dashboard?.ports).toContain('3000:3000');
    for (const name of BULLBEAT) {
      const s = services[name] as Service;
      expect(s.build, name).toBe('.');
      expect(s.environment?.REDIS_URL, name).toBe('redis://redis:6379');
      expect(s.depends_on?.redis?.condition, name).toBe('service_healthy');
      // Longer than the workers' 30 s grace, so that docker stop lets running jobs finish.
      expect(Number.parseInt(s.stop_grace_period ?? '0', 10), name).toBeGreaterThan(30);
    }
    expect(services.dashboard?.environment).toHaveProperty('BULLBEAT_DASHBOARD_PASSWORD');
  });

  it('publishes Redis on 127.0.0.1:6380 (BULLBEAT_REDIS_PORT), not on 6379 where a local Redis runs', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own variable syntax
    expect(services.redis?.ports).toEqual(['127.0.0.1:${BULLBEAT_REDIS_PORT:-6380}:6379']);
    for (const [name, s] of Object.entries(services)) {
      for (const port of s.ports ?? []) expect(port, name).not.toMatch(/:6379:/);
    }
  });

  it('checks the dashboard once before starting it: dashboard-check runs `dashboard --check`, never restarts', () => {
    const check = services['dashboard-check'] as Service & { restart?: string };
    expect(check.command.slice(0, 2)).toEqual(['dashboard', '--check']);
    expect(check.restart).toBe('no');
    expect(check.environment).toEqual(services.dashboard?.environment);
    expect(services.dashboard?.depends_on?.['dashboard-check']?.condition).toBe(
      'service_completed_successfully',
    );
    expect((services.dashboard as Service & { restart?: string }).restart).toBe('unless-stopped');
  });

  it("dashboard-check's command: exit 2 with the reason without credentials, 0 with them (no Redis needed)", async () => {
    const check = services['dashboard-check'] as Service;
    // Compose's interpolation with none of the variables set: `${NAME:-default}` becomes the default.
    const unset = Object.fromEntries(
      Object.entries(check.environment ?? {}).map(([k, v]) => [k, v.replace(/\$\{\w+:-([^}]*)\}/g, '$1')]),
    );
    expect(unset.BULLBEAT_DASHBOARD_TOKEN).toBe('');
    const env = { ...unset, REDIS_URL: `redis://127.0.0.1:${await closedPort()}` };
    const missing = spawnBullbeat(check.command, { env });
    expect((await missing.exited).code).toBe(2);
    expect(missing.output()).toContain('the dashboard has no credentials: set BULLBEAT_DASHBOARD_TOKEN');
    const ok = spawnBullbeat(check.command, { env: { ...env, BULLBEAT_DASHBOARD_TOKEN: randomUUID() } });
    expect((await ok.exited).code).toBe(0);
    expect(ok.output()).toContain('bullbeat dashboard: configuration ok (bearer token; port 3000)');
    // The dashboard itself says the same at once, before it would wait for Redis.
    const dash = spawnBullbeat(services.dashboard?.command ?? [], { env });
    expect((await dash.exited).code).toBe(2);
    expect(dash.output()).toContain('the dashboard has no credentials');
  }, 60_000);

  it('scheduler replicas and workers serve /metrics on 9464 (exposed, not published), probed on /readyz', () => {
    for (const name of ['scheduler', 'worker'] as const) {
      const s = services[name] as Service;
      expect(s.environment?.BULLBEAT_METRICS_PORT, name).toBe('9464');
      expect(s.expose, name).toEqual(['9464']);
      expect(s.ports, name).toBeUndefined();
      expect(s.healthcheck?.test.join(' '), name).toContain('http://127.0.0.1:9464/readyz');
    }
    // The Prometheus scrape config names the same port.
    const prometheus = parse(readFileSync(join(root, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: { job_name: string; dns_sd_configs?: { names: string[]; port: number }[] }[];
    };
    for (const job of ['bullbeat-scheduler', 'bullbeat-worker']) {
      const sd = prometheus.scrape_configs.find((c) => c.job_name === job)?.dns_sd_configs?.[0];
      expect(sd?.port, job).toBe(9464);
    }
  });

  it('builds from a multi-stage node:24-slim (LTS) Dockerfile that runs as a non-root user on the built dist', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const froms = [...dockerfile.matchAll(/^FROM (\S+)(?: AS (\S+))?/gm)].map((m) => [m[1], m[2]]);
    expect(froms).toEqual([
      ['node:24-slim', 'build'],
      ['node:24-slim', 'runtime'],
    ]);
    // The image's Node is one that package.json's engines accept.
    const engines = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }
    ).engines.node;
    expect(engines).toContain('>=24');
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    expect(runtime).toContain('npm ci --omit=dev');
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toContain('ENTRYPOINT ["node", "dist/src/cli/main.js"]');
    // The build stage copies every folder the build compiles (tsconfig.build.json's include): a folder
    // left out builds without complaint and ships an image without that entry (bullbeat/nest).
    const build = dockerfile.slice(dockerfile.indexOf(' AS build'), dockerfile.indexOf(' AS runtime'));
    const copied = [...build.matchAll(/^COPY (\S+) \.\/\1$/gm)].map((m) => m[1]);
    const compiled = (
      JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { include: string[] }
    ).include;
    expect(copied).toEqual(expect.arrayContaining(compiled));
    const ignore = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['node_modules', 'dist', '.git', '.env']) expect(ignore).toContain(entry);
  });
});

describe('the compose commands as processes on loopback', () => {
  const JOBS = 'test/deploy/fixtures/every-second.mjs';
  const token = randomUUID();
  let redisDir: string;
  let redisServer: ChildProcess;
  let redisUrl: string;
  let redis: Redis;
  const procs: { service: string; proc: RunningBullbeat }[] = [];

  beforeAll(async () => {
    assertBuilt();
    redisDir = mkdtempSync(join(tmpdir(), 'bullbeat-deploy-'));
    const port = await closedPort();
    redisUrl = `redis://127.0.0.1:${port}`;
    const args = [
      ...(services.redis as Service).command.slice(1),
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      redisDir,
    ];
    redisServer = spawn('redis-server', args, { stdio: 'ignore' });
    redis = new Redis(redisUrl, { retryStrategy: (n) => (n > 100 ? null : 50) });
    redis.on('error', () => undefined);
    await redis.ping();
    expect(await redis.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);

    for (const service of BULLBEAT) {
      const s = services[service] as Service;
      const replicas = s.deploy?.replicas ?? 1;
      for (let i = 0; i < replicas; i++) {
        // The compose command, with the test's jobs module and a free dashboard port.
        const args = s.command.map((a) => (a === 'dist/examples/jobs.js' ? JOBS : a));
        const portAt = args.indexOf('--port');
        if (portAt >= 0) args[portAt + 1] = '0';
        // The metrics port too: every replica here shares one host (docker gives each its own).
        const env = {
          ...s.environment,
          REDIS_URL: redisUrl,
          BULLBEAT_DASHBOARD_TOKEN: token,
          ...(s.environment?.BULLBEAT_METRICS_PORT !== undefined && {
            BULLBEAT_METRICS_PORT: '0',
            BULLBEAT_METRICS_HOST: '127.0.0.1',
          }),
        };
        procs.push({ service, proc: spawnBullbeat(args, { env }) });
      }
    }
    await Promise.all(
      procs.map(({ service, proc }) =>
        proc.waitFor(
          service === 'scheduler'
            ? /scheduler replica running/
            : service === 'worker'
              ? /worker running/
              : /dashboard: listening/,
          30_000,
        ),
      ),
    );
  }, 60_000);

  afterAll(async () => {
    for (const { proc } of procs) proc.kill();
    await redis?.quit().catch(() => undefined);
    redisServer?.kill('SIGTERM');
    await new Promise((resolve) => redisServer?.once('exit', resolve));
    rmSync(redisDir, { recursive: true, force: true });
  });

  it('starts 2 schedulers, 2 workers and a dashboard', () => {
    expect(procs.map((p) => p.service).sort()).toEqual([
      'dashboard',
      'scheduler',
      'scheduler',
      'worker',
      'worker',
    ]);
  });

  it('every occurrence in a window is enqueued exactly once and run once', async () => {
    const ranKey = '{bullbeat}:bb:test:ran';
    const t0 = Math.ceil(Date.now() / 1000) * 1000 + 2000;
    const t1 = t0 + 8000;
    const expected = (t1 - t0) / 1000 + 1;
    const inWindow = (entries: string[], id: string) =>
      entries.map((e) => e.split(':')).filter(([s, t]) => s === id && Number(t) >= t0 && Number(t) <= t1);
    const deadline = t1 + 25_000;
    let entries: string[] = [];
    for (;;) {
      entries = await redis.lrange(ranKey, 0, -1);
      const done = ['tick', 'cron-tick'].every((id) => inWindow(entries, id).length >= expected);
      if (done || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // No occurrence ran twice, anywhere in the run.
    const occurrences = entries.map((e) => e.split(':').slice(0, 2).join(':'));
    expect(new Set(occurrences).size).toBe(occurrences.length);
    for (const id of ['tick', 'cron-tick']) {
      const times = inWindow(entries, id)
        .map(([, t]) => Number(t))
        .sort((a, b) => a - b);
      expect(times, id).toEqual(Array.from({ length: expected }, (_, i) => t0 + i * 1000));
    }
    // Runs happened in worker processes only.
    const workerPids = new Set(procs.filter((p) => p.service === 'worker').map((p) => p.proc.child.pid));
    expect(entries.every((e) => workerPids.has(Number(e.split(':')[2])))).toBe(true);
    // Each enqueued occurrence is recorded once in the run history, as succeeded.
    // (a record is a hash of facts per occurrence: docs/records.md)
    for (let t = t0; t <= t1; t += 1000) {
      expect(await redis.hget(`{bullbeat}:bb:rec:tick:${t}`, 'outcome'), `tick ${t}`).toBe('succeeded');
    }
  }, 60_000);

  it('the dashboard answers /healthz, /readyz and its API (with the token)', async () => {
    const dash = procs.find((p) => p.service === 'dashboard')?.proc as RunningBullbeat;
    const url = /"url":"(http:\/\/[^"]+)"/.exec(dash.output())?.[1] as string;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await fetch(`${url}/api/schedules`)).status).toBe(401);
    const res = await fetch(`${url}/api/schedules`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { total: number; items: { id: string; status: string }[] };
    expect(body.items.map((i) => i.id).sort()).toEqual(['cron-tick', 'tick']);
    expect(body.items.every((i) => i.status === 'active')).toBe(true);
  });

  it('each scheduler replica and worker serves its own /metrics and is ready; the dashboard counts them', async () => {
    for (const { service, proc } of procs.filter((p) => p.service !== 'dashboard')) {
      const url = /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(proc.output())?.[1] as string;
      expect(url, service).toBeDefined();
      expect((await fetch(`${url}/readyz`)).status, service).toBe(200);
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text, service).toContain(
        service === 'scheduler'
          ? 'bullbeat_fires_total{kind="scheduled"}'
          : 'bullbeat_runs_total{queue="deploy"',
      );
    }
    const dash = procs.find((p) => p.service === 'dashboard')?.proc as RunningBullbeat;
    const url = /"url":"(http:\/\/[^"]+)"/.exec(dash.output())?.[1] as string;
    const text = await (
      await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
    ).text();
    expect(text).toContain('bullbeat_replicas 2');
    expect(text).toContain('bullbeat_workers 2');
  });

  it('every process stops cleanly on SIGTERM (docker stop), exit 0', async () => {
    for (const { proc } of procs) proc.child.kill('SIGTERM');
    const results = await Promise.all(
      procs.map(async ({ service, proc }) => [service, (await proc.exited).code]),
    );
    expect(results.map(([, code]) => code)).toEqual([0, 0, 0, 0, 0]);
  }, 60_000);
});

/** The `--omit=` flags of the runtime stage's `npm ci`, read from the Dockerfile itself. */
function runtimeOmit(): string[] {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const runtime = dockerfile.slice(dockerfile.indexOf(' AS runtime'));
  const install = /^RUN npm ci ([^&\n]*)/m.exec(runtime)?.[1];
  if (!install) throw new Error('Dockerfile: no `RUN npm ci` in the runtime stage');
  return install.split(/\s+/).filter((a) => a.startsWith('--omit='));
}

describe("the Dockerfile's runtime stage", () => {
  // No Docker here: the runtime stage is `npm ci` with the Dockerfile's --omit flags plus the built
  // dist/. The nearest thing offline: a copy of node_modules pruned with those flags, dist/ beside it.
  let dir: string;

  beforeAll(() => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'bullbeat-runtime-'));
    for (const f of ['package.json', 'package-lock.json']) {
      spawnSync('cp', [join(root, f), join(dir, f)]);
    }
    linkNodeModules(dir); // pruned below: npm unlinks what it removes, the repository's stays
    const cp = spawnSync('cp', ['-r', join(root, 'dist'), join(dir, 'dist')]);
    if (cp.status !== 0) throw new Error('copying dist failed');
    const prune = spawnSync('npm', ['prune', ...runtimeOmit(), '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
    });
    if (prune.status !== 0) throw new Error(`npm prune failed: ${prune.stderr}`);
  }, 120_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('has no dev dependencies, and runs every role of the compose file with what is left', async () => {
    expect(existsSync(join(dir, 'node_modules/vitest'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules/tsx'))).toBe(false);
    // Nor TypeScript, which @bull-board/api's valibot pulls in as an optional peer (23 MB).
    expect(runtimeOmit()).toEqual(expect.arrayContaining(['--omit=dev']));
    expect(existsSync(join(dir, 'node_modules/typescript'))).toBe(false);
    const prefix = `runtime-${randomUUID()}`;
    const env = { BULLBEAT_PREFIX: prefix, BULLBEAT_DASHBOARD_TOKEN: randomUUID() };
    const cli = join(dir, 'dist/src/cli/main.js');
    const roles = [
      spawnBullbeat([], { cwd: dir, env, command: [cli, 'scheduler', 'dist/examples/jobs.js'] }),
      spawnBullbeat([], { cwd: dir, env, command: [cli, 'worker', 'dist/examples/jobs.js'] }),
      spawnBullbeat([], { cwd: dir, env, command: [cli, 'dashboard', '--port', '0'] }),
    ];
    const redis = new Redis(REDIS_URL);
    try {
      await roles[0]?.waitFor(/scheduler replica running/);
      await roles[1]?.waitFor(/worker running/);
      await roles[2]?.waitFor(/dashboard: listening/);
      expect(await redis.hexists(`{${prefix}}:bb:schedules`, 'weekdayReport')).toBe(1);
      for (const role of roles) role.child.kill('SIGTERM');
      expect((await Promise.all(roles.map((r) => r.exited))).map((e) => e.code)).toEqual([0, 0, 0]);
      // A TypeScript jobs module needs tsx, which is a dev dependency: a clear error, not a crash.
      const ts = spawnBullbeat([], {
        cwd: dir,
        env,
        command: [cli, 'scheduler', join(root, 'test/cli/fixtures/jobs-decorated.ts')],
      });
      expect((await ts.exited).code).toBe(2);
      expect(ts.output()).toContain('a TypeScript jobs module needs tsx');
    } finally {
      for (const role of roles) role.kill();
      const keys = await redis.keys(`{${prefix}}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      // The example's own queues (it keeps to them so as not to touch anyone else's jobs).
      for (const name of ['examples', 'example-reports', 'example-emails']) {
        const q = new Queue(name, { connection: REDIS });
        await q.obliterate({ force: true }).catch(() => undefined);
        await q.close();
      }
    }
  }, 60_000);
});
