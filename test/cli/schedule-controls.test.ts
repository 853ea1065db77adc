import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS, REDIS_URL } from '../redis-url.js';
import { assertBuilt, runBullbeat } from './run-bullbeat.js';

const prefix = `cli-controls-${randomUUID()}`;
const queue = `cli-controls-q-${randomUUID()}`;
const env = { BULLBEAT_PREFIX: prefix };
let redis: Redis;

beforeAll(() => {
  assertBuilt();
  redis = new Redis(REDIS_URL);
});

afterAll(async () => {
  const keys = await redis.keys(`{${prefix}}*`);
  if (keys.length) await redis.del(...keys);
  const q = new Queue(queue, { connection: REDIS });
  await q.obliterate({ force: true });
  await q.close();
  await redis.quit();
});

const stored = (id: string) => redis.hget(`{${prefix}}:bb:schedules`, id);

describe('schedule:update', () => {
  it('changes the trigger and an option, keeps the rest, and prints what changed', async () => {
    const add = await runBullbeat(
      ['schedule:add', '--name', 'export', '--every', '3600', '--queue', queue, '--attempts', '3'],
      { env },
    );
    expect(add.code, add.stderr).toBe(0);
    const run = await runBullbeat(
      ['schedule:update', 'export', '--cron', '0 2 * * *', '--tz', 'Europe/Berlin', '--max-instances', '2'],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^updated export: At 02:00 \(Europe\/Berlin\); jobs "export" on queue/);
    expect(run.stdout).toContain('changed: ');
    const def = JSON.parse((await stored('export'))!);
    expect(def).toMatchObject({
      trigger: { type: 'cron', expression: '0 2 * * *', timezone: 'Europe/Berlin' },
      attempts: 3,
      run: { maxInstances: 2 },
    });
  });

  it('refuses bad input naming the flag (exit 2), a missing id (exit 4); nothing changes', async () => {
    const before = await stored('export');
    const cases: [string[], number, string][] = [
      [['schedule:update', 'export', '--max-instances', '-1'], 2, '--max-instances'],
      [['schedule:update', 'export', '--every', '0'], 2, '--every'],
      [['schedule:update', 'export', '--tz', 'Europe/Paris'], 2, '--tz'],
      [['schedule:update', 'export'], 2, 'nothing to change'],
      [['schedule:update', 'missing', '--attempts', '2'], 4, 'missing'],
    ];
    for (const [args, code, says] of cases) {
      const run = await runBullbeat(args, { env });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(code);
      expect(run.stderr).toContain(says);
    }
    expect(await stored('export')).toBe(before);
  });
});
