// Real `bullbeat` processes on a deployment whose stored data format is newer than this release's:
// the scheduler, the worker and `status` each exit 2 before doing anything, with an error naming both
// versions; the format key is left as it was.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_FORMAT } from '../../src/store/deployment/data-format.js';
import { keys } from '../../src/store/keys/keys.js';
import { REDIS_URL } from '../redis-url.js';
import { cliPath } from './run-bullbeat.js';
import { spawnBullbeat } from './spawn-bullbeat.js';

const prefix = `cli-format-${randomUUID().slice(0, 8)}`;
const NEWER = DATA_FORMAT + 1;
let redis: Redis;

beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  await redis.set(keys(prefix).dataFormat, String(NEWER));
});

afterAll(async () => {
  const found = await redis.keys(`{${prefix}}*`);
  if (found.length) await redis.del(...found);
  await redis.quit();
});

/** `bullbeat ...args` as its own process; one that does not refuse keeps running and is killed after 20 s. */
async function spawned(args: string[]) {
  const run = spawnBullbeat([], {
    command: [cliPath, ...args],
    env: { BULLBEAT_PREFIX: prefix, BB_TEST_PREFIX: prefix, BB_TEST_QUEUE: `q-${prefix}` },
  });
  const timer = setTimeout(() => run.kill(), 20_000);
  const { code } = await run.exited;
  clearTimeout(timer);
  return { code, output: run.output() };
}

describe('a process of this release on a deployment in a newer data format', () => {
  it.each([
    ['scheduler', ['scheduler', 'test/queue/fixtures/worker-jobs.ts']],
    ['worker', ['worker', 'test/queue/fixtures/worker-jobs.ts', '--queues', `q-${prefix}`]],
    ['status', ['status']],
  ])(
    '%s exits 2 naming both formats',
    async (_name, args) => {
      const run = await spawned(args);
      expect(run.code, run.output).toBe(2);
      expect(run.output).toContain(`format ${NEWER}`);
      expect(run.output).toContain(`format ${DATA_FORMAT},`);
      expect(run.output).toContain(keys(prefix).dataFormat);
      expect(await redis.keys(`{${prefix}}*`)).toEqual([keys(prefix).dataFormat]);
      expect(await redis.get(keys(prefix).dataFormat)).toBe(String(NEWER));
    },
    60_000,
  );
});
