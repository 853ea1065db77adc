import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../redis-url.js';
import { waitUntil } from '../wait-until.js';
import { assertBuilt, runBullbeat } from './run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from './spawn-bullbeat.js';

const APP_WORKER = fileURLToPath(new URL('./fixtures/bullmq-app-worker.mjs', import.meta.url));
const id = randomUUID().slice(0, 8);
const prefix = `migrate-${id}`;
const queueName = `migrate-q-${id}`;
const logKey = `migrate-log-${id}`;
const env = { BULLBEAT_PREFIX: prefix, REDIS_URL };
let redis: Redis;
let queue: Queue;
const running: RunningBullbeat[] = [];

interface Ran {
  id: string;
  name: string;
  data: unknown;
}

async function ran(): Promise<Ran[]> {
  return (await redis.lrange(logKey, 0, -1)).map((l) => JSON.parse(l) as Ran);
}

/** The instant a job stands for: BullMQ's `repeat:<scheduler>:<ms>`, bullbeat's `bb-<schedule>-<ms>`. */
function instantOf(jobId: string): { by: 'bullmq' | 'bullbeat'; at: number } {
  const m = /^(repeat:.*:|bb-.*-)(\d+)$/.exec(jobId);
  if (!m) throw new Error(`unexpected job id ${jobId}`);
  return { by: jobId.startsWith('bb-') ? 'bullbeat' : 'bullmq', at: Number(m[2]) };
}

beforeAll(async () => {
  assertBuilt();
  redis = new Redis(REDIS_URL);
  queue = new Queue(queueName, { connection: { url: REDIS_URL } });
  await queue.upsertJobScheduler('ping-1s', { every: 1000 }, { name: 'ping', data: { target: 'upstream' } });
});

afterAll(async () => {
  for (const p of running) p.kill();
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  const keys = [...(await redis.keys(`{${prefix}}*`)), logKey];
  await redis.del(...keys);
  await redis.quit();
});

describe('a BullMQ app migrated with import:bullmq, its own Worker unchanged, in separate processes', () => {
  it('hands over at the pending job: the same job.data, no instant twice, the originals gone; again is a no-op', async () => {
    const app = spawnBullbeat([], {
      command: [APP_WORKER],
      env: { QUEUE: queueName, LOG_KEY: logKey, REDIS_URL },
    });
    running.push(app);
    await app.waitFor(/app worker ready/);
    await waitUntil(async () => (await ran()).length >= 2, 30_000, { stepMs: 200, what: 'two BullMQ runs' });

    const imported = await runBullbeat(
      ['import:bullmq', '--queue', queueName, '--remove-originals', '--json'],
      { env },
    );
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const report = JSON.parse(imported.stdout) as {
      payload: string;
      items: { action: string; original?: string; options: { payload?: string; startAt?: number } }[];
    };
    expect(report.payload).toBe('plain');
    expect(report.items).toHaveLength(1);
    expect(report.items[0]).toMatchObject({
      action: 'created',
      original: 'removed',
      options: { payload: 'plain' },
    });
    expect(await redis.zcard(queue.keys.repeat as string)).toBe(0);

    // no jobs module: the scheduler fires the runtime schedules in Redis
    const scheduler = spawnBullbeat(['scheduler'], { env });
    running.push(scheduler);
    await scheduler.waitFor(/scheduler replica running/, 30_000);
    await waitUntil(async () => (await ran()).filter((r) => r.id.startsWith('bb-')).length >= 3, 40_000, {
      stepMs: 200,
      what: 'three runs enqueued by bullbeat',
    });

    const runs = await ran();
    // the app's worker read the data as it always did, from BullMQ's jobs and from bullbeat's alike
    for (const r of runs) expect(r, r.id).toMatchObject({ name: 'ping', data: { target: 'upstream' } });
    const instants = runs.map((r) => instantOf(r.id));
    const at = instants.map((i) => i.at);
    expect(new Set(at).size, `an instant ran twice: ${JSON.stringify(instants)}`).toBe(at.length);
    const lastBullmq = Math.max(...instants.filter((i) => i.by === 'bullmq').map((i) => i.at));
    const bullbeat = instants.filter((i) => i.by === 'bullbeat').map((i) => i.at);
    expect(Math.min(...bullbeat)).toBeGreaterThan(lastBullmq);
    // bullbeat keeps BullMQ's phase: every instant on the same 1 s grid
    for (const t of bullbeat) expect((t - lastBullmq) % 1000).toBe(0);
    expect(report.items[0]?.options.startAt).toBeLessThanOrEqual(Math.min(...bullbeat));

    // the scheduler follows the plain Worker's outcomes: the runs are counted
    await waitUntil(
      async () => {
        const show = await runBullbeat(['schedule:show', 'ping-1s', '--json'], { env });
        return (JSON.parse(show.stdout) as { runs: number }).runs >= 1;
      },
      30_000,
      { stepMs: 200, what: 'a run recorded from the plain Worker' },
    );

    const again = await runBullbeat(['import:bullmq', '--queue', queueName, '--remove-originals'], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`no job schedulers or repeatable jobs in BullMQ queue "${queueName}"`);
    scheduler.child.kill('SIGTERM');
    app.child.kill('SIGTERM');
    expect((await scheduler.exited).code).toBe(0);
    await app.exited;
  }, 180_000);
});
