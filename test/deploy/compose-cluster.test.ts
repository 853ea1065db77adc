import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { openRedis } from '../../src/store/connection/redis-target.js';
import { assertBuilt, root } from '../cli/run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from '../cli/spawn-bullbeat.js';
import { type LocalCluster, startCluster } from '../setup/redis-cluster.js';

// As test/deploy/compose.test.ts for docker-compose.cluster.yml: Docker cannot run here, so its
// structure is checked, then its commands (2 schedulers, 2 workers, the dashboard) run as processes
// on loopback against a local 3+3 Redis Cluster whose nodes get the compose file's redis-server
// arguments (cluster mode, AOF, noeviction), made by the same `redis-cli --cluster create`.

interface Service {
  image?: string;
  build?: string;
  command: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  healthcheck?: { test: string[] };
  volumes?: string[];
}

const compose = parse(readFileSync(join(root, 'docker-compose.cluster.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;
const NODES = ['redis-1', 'redis-2', 'redis-3', 'redis-4', 'redis-5', 'redis-6'];
const BULLBEAT = ['scheduler', 'worker', 'dashboard'] as const;

describe('docker-compose.cluster.yml', () => {
  it('has six cluster-mode Redis nodes (AOF, noeviction, a health check, a volume each) and a one-shot create', () => {
    for (const name of NODES) {
      const node = services[name] as Service;
      const args = node.command.join(' ');
      expect(node.command[0], name).toBe('redis-server');
      expect(args, name).toContain('--cluster-enabled yes');
      expect(args, name).toContain('--appendonly yes');
      expect(args, name).toContain('--maxmemory-policy noeviction');
      expect(node.healthcheck?.test, name).toEqual(['CMD', 'redis-cli', 'ping']);
      expect(node.volumes?.[0], name).toBe(`${name}:/data`);
      expect(compose.volumes, name).toHaveProperty(name);
    }
    const init = services['redis-cluster-init'] as Service;
    const script = init.command.join(' ');
    expect(script).toContain(
      `redis-cli --cluster create ${NODES.map((n) => `${n}:6379`).join(' ')} --cluster-replicas 1 --cluster-yes`,
    );
    for (const name of NODES) expect(init.depends_on?.[name]?.condition).toBe('service_healthy');
  });

  it('runs 2 schedulers, 2 workers and the dashboard on REDIS_CLUSTER_NODES, after the cluster is made', () => {
    expect(services.scheduler?.deploy?.replicas).toBe(2);
    expect(services.worker?.deploy?.replicas).toBe(2);
    for (const name of BULLBEAT) {
      const s = services[name] as Service;
      expect(s.build, name).toBe('.');
      expect(s.environment?.REDIS_CLUSTER_NODES, name).toBe(NODES.map((n) => `${n}:6379`).join(','));
      expect(s.environment?.REDIS_URL, name).toBeUndefined();
      expect(s.depends_on?.['redis-cluster-init']?.condition, name).toBe('service_completed_successfully');
    }
  });
});

describe('the cluster compose commands as processes on loopback', () => {
  const JOBS = 'test/deploy/fixtures/every-second.mjs';
  const token = randomUUID();
  const prefix = `deploy-${randomUUID().slice(0, 8)}`;
  let cluster: LocalCluster;
  const procs: { service: string; proc: RunningBullbeat }[] = [];

  beforeAll(async () => {
    assertBuilt();
    cluster = await startCluster({ nodeArgs: (services['redis-1'] as Service).command.slice(1) });
    const probe = openRedis({ host: '127.0.0.1', port: cluster.nodes[0]!.port });
    expect(await probe.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    expect(await probe.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    probe.disconnect();
    for (const service of BULLBEAT) {
      const s = services[service] as Service;
      for (let i = 0; i < (s.deploy?.replicas ?? 1); i++) {
        const args = s.command.map((a) => (a === 'dist/examples/jobs.js' ? JOBS : a));
        const portAt = args.indexOf('--port');
        if (portAt >= 0) args[portAt + 1] = '0';
        const env = {
          ...s.environment,
          REDIS_CLUSTER_NODES: cluster.nodesText,
          REDIS_URL: undefined,
          BULLBEAT_PREFIX: prefix,
          BULLBEAT_DASHBOARD_TOKEN: token,
          BULLBEAT_METRICS_PORT: '0',
          BULLBEAT_METRICS_HOST: '127.0.0.1',
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
          40_000,
        ),
      ),
    );
  }, 90_000);

  afterAll(async () => {
    for (const { proc } of procs) proc.kill();
    await cluster?.stop();
  });

  it('every occurrence in a window runs exactly once, in the workers; the dashboard lists the schedules', async () => {
    const redis = openRedis({
      cluster: { nodes: [{ host: '127.0.0.1', port: cluster.nodes[0]!.port }], options: {} },
    });
    try {
      const ranKey = `{${prefix}}:bb:test:ran`;
      const t0 = Math.ceil(Date.now() / 1000) * 1000 + 2000;
      const t1 = t0 + 6000;
      const expected = (t1 - t0) / 1000 + 1;
      const inWindow = (entries: string[], id: string) =>
        entries.map((e) => e.split(':')).filter(([s, t]) => s === id && Number(t) >= t0 && Number(t) <= t1);
      const deadline = t1 + 25_000;
      let entries: string[] = [];
      for (;;) {
        entries = await redis.lrange(ranKey, 0, -1);
        if (
          ['tick', 'cron-tick'].every((id) => inWindow(entries, id).length >= expected) ||
          Date.now() > deadline
        )
          break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const occurrences = entries.map((e) => e.split(':').slice(0, 2).join(':'));
      expect(new Set(occurrences).size).toBe(occurrences.length);
      for (const id of ['tick', 'cron-tick']) {
        const times = inWindow(entries, id)
          .map(([, t]) => Number(t))
          .sort((a, b) => a - b);
        expect(times, id).toEqual(Array.from({ length: expected }, (_, i) => t0 + i * 1000));
      }
      const workerPids = new Set(procs.filter((p) => p.service === 'worker').map((p) => p.proc.child.pid));
      expect(entries.every((e) => workerPids.has(Number(e.split(':')[2])))).toBe(true);
    } finally {
      redis.disconnect();
    }
    const dash = procs.find((p) => p.service === 'dashboard')?.proc as RunningBullbeat;
    const url = /"url":"(http:\/\/[^"]+)"/.exec(dash.output())?.[1] as string;
    const res = await fetch(`${url}/api/schedules`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: { id: string; status: string }[] };
    expect(body.items.map((i) => i.id).sort()).toEqual(['cron-tick', 'tick']);
    const metrics = await (
      await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
    ).text();
    expect(metrics).toContain('bullbeat_replicas 2');
    expect(metrics).toContain('bullbeat_workers 2');
  }, 60_000);

  it('every process stops cleanly on SIGTERM, exit 0', async () => {
    for (const { proc } of procs) proc.child.kill('SIGTERM');
    const results = await Promise.all(procs.map(async ({ proc }) => (await proc.exited).code));
    expect(results).toEqual([0, 0, 0, 0, 0]);
  }, 60_000);
});
