// The CLI checks the deployment's recorded partition count: `schedule:add` (or any command) with
// another BULLBEAT_PARTITIONS exits 2 naming both counts, and writes nothing; so does a worker.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys/keys.js';
import { REDIS_URL } from '../redis-url.js';
import { cliPath, runBullbeat } from './run-bullbeat.js';
import { spawnBullbeat } from './spawn-bullbeat.js';

const prefix = `cli-partitions-${randomUUID()}`;
let redis: Redis;

beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  await redis.set(keys(prefix).partitionCount, '1');
});

afterAll(async () => {
  const found = await redis.keys(`{${prefix}*`);
  if (found.length) await redis.del(...found);
  await redis.quit();
});

const env4 = { BULLBEAT_PREFIX: prefix, BULLBEAT_PARTITIONS: '4' };

/**
 * A one-shot `bullbeat ...args` in this process (`runCli`), with the prefix and `BULLBEAT_PARTITIONS=4`
 * in the CLI's env only: the managers it makes read that, not `process.env`.
 */
async function bullbeat(args: string[]) {
  expect(process.env.BULLBEAT_PARTITIONS).toBeUndefined();
  const run = await runBullbeat(args, { env: env4, timeoutMs: 15_000 });
  return { code: run.code, output: run.stdout + run.stderr };
}

/** A service (`worker`) from the build, spawned: it owns its process and its exit. */
async function spawned(args: string[], env: Record<string, string>) {
  const run = spawnBullbeat([], {
    command: [cliPath, ...args],
    env: { ...env, BULLBEAT_PARTITIONS: '4' },
  });
  // a process that does not refuse keeps running: killed after 15 s (its code is then null)
  const timer = setTimeout(() => run.kill(), 15_000);
  const { code } = await run.exited;
  clearTimeout(timer);
  return { code, output: run.output() };
}

describe('BULLBEAT_PARTITIONS other than the deployment recorded', () => {
  it('schedule:add exits 2 naming both counts and writes nothing; schedule:list, why and status exit 2', async () => {
    const add = await bullbeat(['schedule:add', '--name', 'nightly', '--every', '60']);
    expect(add.code, add.output).toBe(2);
    expect(add.output).toContain('BULLBEAT_PARTITIONS');
    expect(add.output).toMatch(/\b1 partition/);
    expect(add.output).toMatch(/\b4\b/);
    expect((await redis.keys(`{${prefix}*`)).sort()).toEqual([keys(prefix).partitionCount]);
    const list = await bullbeat(['schedule:list']);
    expect(list.code, list.output).toBe(2);
    expect(list.output).toContain('BULLBEAT_PARTITIONS');
    for (const args of [['schedule:why', 'nightly'], ['status']]) {
      const read = await bullbeat(args);
      expect(read.code, `${args.join(' ')}: ${read.output}`).toBe(2);
      expect(read.output).toContain('BULLBEAT_PARTITIONS');
    }
  });

  it('a worker exits 2 before taking any job', async () => {
    // the test jobs module takes its prefix from BB_TEST_PREFIX, its partition count from the environment
    const worker = await spawned(
      ['worker', 'test/queue/fixtures/worker-jobs.ts', '--queues', `q-${prefix}`],
      {
        BB_TEST_PREFIX: prefix,
      },
    );
    expect(worker.code, worker.output).toBe(2);
    expect(worker.output).toContain('BULLBEAT_PARTITIONS');
  }, 60_000);
});
