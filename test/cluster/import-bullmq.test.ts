import { Queue } from 'bullmq';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullConnection, queuePrefixFor } from '../../src/store/connection/redis-target.js';
import { assertBuilt, runBullbeat } from '../cli/run-bullbeat.js';
import { type LocalCluster, startCluster } from '../setup/redis-cluster.js';
import { clusterEnv } from './helpers.js';

let cluster: LocalCluster;
beforeAll(async () => {
  assertBuilt();
  cluster = await startCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describe('import:bullmq on a Redis Cluster', () => {
  it('reads the queue under its cluster prefix, creates the schedules and removes the originals', async () => {
    const env = clusterEnv(cluster, 'import');
    const connection = bullConnection(env.target) as Cluster;
    const queue = new Queue(env.queue, { connection, prefix: queuePrefixFor(env.target, env.queue)! });
    try {
      await queue.upsertJobScheduler(
        'hourly',
        { pattern: '0 * * * *', tz: 'UTC' },
        { name: 'report', data: { a: 1 } },
      );
      await queue.upsertJobScheduler('ping', { every: 60_000 }, { name: 'ping' });
      const cli = { REDIS_CLUSTER_NODES: cluster.nodesText, BULLBEAT_PREFIX: env.prefix };
      const run = await runBullbeat(['import:bullmq', '--queue', env.queue, '--remove-originals', '--json'], {
        env: cli,
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const items = (JSON.parse(run.stdout) as { items: { id: string; action: string; original: string }[] })
        .items;
      expect(items.map((i) => [i.id, i.action, i.original]).sort()).toEqual([
        ['hourly', 'created', 'removed'],
        ['ping', 'created', 'removed'],
      ]);
      expect(await queue.getJobSchedulersCount()).toBe(0);
      const m = env.manager({ role: 'client' });
      const hourly = await m.get('hourly');
      expect(hourly?.def).toMatchObject({
        queue: env.queue,
        name: 'report',
        data: { a: 1 },
        payload: 'plain',
      });
      const again = await runBullbeat(['import:bullmq', '--queue', env.queue, '--remove-originals'], {
        env: cli,
      });
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('no job schedulers or repeatable jobs');
    } finally {
      await queue.close();
      connection.disconnect();
      await env.cleanup();
    }
  }, 90_000);
});
