// The format upgrade path with a real step, across real processes: the package ships no upgrade
// (`FORMAT_UPGRADES` is empty, format 1 is the first), so this test registers one from format 1 to 2 in
// the processes it starts, through the test seam `setDataFormatRules` (fixtures/format-upgrader.ts).
// Three processes of that "format 2 release" starting together on a format-1 deployment run the step
// once (one takes the step's lease, the others wait for the format to move; the move is
// `set-format-1`'s compare-and-set) and all start at format 2; a process of this release (format 1)
// then refuses the deployment with a `DataFormatError` naming both formats: a manager in this process,
// and the built CLI.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { DataFormatError } from '../../src/errors/index.js';
import { SchedulerManager } from '../../src/scheduler/index.js';
import { DATA_FORMAT, FORMAT_UPGRADES } from '../../src/store/deployment/data-format.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { runBullbeat } from '../cli/run-bullbeat.js';
import { REDIS_URL } from '../redis-url.js';
import { silent } from '../scheduler/helpers.js';

const UPGRADER = 'test/store/fixtures/format-upgrader.ts';

/** Run the upgrader in `n` processes; resolves with each one's output and exit code. */
function upgraders(n: number, prefix: string, mark: string) {
  return Array.from(
    { length: n },
    () =>
      new Promise<{ code: number | null; out: string }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', UPGRADER, REDIS_URL, prefix, mark, String(n)],
          { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'silent' } },
        );
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
        });
        child.stderr.on('data', (d: Buffer) => {
          out += d.toString();
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, out }));
      }),
  );
}

describe('a format upgrade step, across processes', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('runs once across 3 processes starting together; a process of the older format then refuses with DataFormatError', async () => {
    // what ships: format 1, no step
    expect(DATA_FORMAT).toBe(1);
    expect(FORMAT_UPGRADES).toEqual({});
    const prefix = `fmt-up-${randomUUID().slice(0, 8)}`;
    const mark = `{${prefix}}:test:upgrade`;
    const redis = new Redis(REDIS_URL);
    cleanups.push(async () => {
      const keys = await redis.keys(`{${prefix}}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    });
    // a deployment of this release: format 1, one schedule
    const before = new SchedulerManager({ prefix, connection: REDIS_URL, role: 'client', logger: silent });
    await before.schedule({ name: 'n', queue: 'q' }, new IntervalTrigger(60), { id: 'n' }).saved;
    await before.close();
    expect(await redis.get(`{${prefix}}:bb:format`)).toBe('1');

    const done = upgraders(3, prefix, mark);
    // every process connected and waiting at the barrier: let them go at once
    const barrier = redis.duplicate();
    for (let i = 0; i < 3; i++) await barrier.blpop(`${mark}:ready`, 60);
    await barrier.quit();
    await redis.rpush(`${mark}:go`, 'go', 'go', 'go');
    const results = await Promise.all(done);
    for (const r of results) {
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain('format 2');
    }
    // the step ran in one process only, and the format moved once, to 2
    expect(await redis.lrange(`${mark}:runs`, 0, -1)).toHaveLength(1);
    expect(await redis.get(`{${prefix}}:bb:format`)).toBe('2');
    expect(JSON.parse((await redis.hget(`{${prefix}}:bb:schedules`, 'n')) as string)).toMatchObject({
      upgraded: true,
    });
    // no lease left behind
    expect(await redis.exists(`{${prefix}}:bb:format:upgrade:1`)).toBe(0);

    // a process of this release (format 1) meets format 2: it refuses, naming both
    const older = new SchedulerManager({ prefix, connection: REDIS_URL, role: 'client', logger: silent });
    cleanups.push(() => older.close());
    const err = (await older.start().catch((e: unknown) => e)) as DataFormatError;
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.stored).toBe(2);
    expect(err.known).toBe(1);
    expect(err.message).toMatch(/format 2 .*newer than format 1/s);
    // the built CLI alike: exit 2, the error on stderr, nothing written
    const cli = await runBullbeat(['scheduler'], { env: { BULLBEAT_PREFIX: prefix }, spawn: true });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/format 2 .*newer than format 1/s);
    expect(await redis.get(`{${prefix}}:bb:format`)).toBe('2');
  });
});
