import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/index.js';
import { REDIS_URL, silent } from '../scheduler/helpers.js';
import { assertBuilt, runBullbeat } from './run-bullbeat.js';

const prefix = `cli-import-${randomUUID()}`;
const queueName = `cli-import-q-${randomUUID()}`;
const env = { BULLBEAT_PREFIX: prefix, REDIS_URL };
let redis: Redis;
let queue: Queue;
const startDate = Date.now() + 86_400_000;
const endDate = Date.now() + 30 * 86_400_000;
/** How BullMQ 5 and older stored a repeatable job added with `queue.add(name, data, { repeat })`. */
const legacyKey = 'legacy-cleanup:::Europe/London:0 6 * * *';
const brokenLegacyKey = 'broken:::UTC:0 0 30 2 *';

beforeAll(async () => {
  assertBuilt();
  redis = new Redis(REDIS_URL);
  queue = new Queue(queueName, { connection: { url: REDIS_URL } });
  await queue.upsertJobScheduler(
    'weekday-report',
    { pattern: '0 9 * * 1-5', tz: 'America/New_York', limit: 10, startDate, endDate },
    { name: 'report' },
  );
  await queue.upsertJobScheduler(
    'ping-5s',
    { every: 5000 },
    {
      name: 'ping',
      data: { target: 'upstream' },
      opts: { attempts: 3, backoff: { type: 'exponential', delay: 1000 }, priority: 2, removeOnComplete: 10 },
    },
  );
  await queue.upsertJobScheduler('local-nightly', { pattern: '0 2 * * *' }, { name: 'nightly' });
  // BullMQ 6 cannot create legacy repeatable jobs any more: write their entries as BullMQ 5 did.
  await redis.zadd(queue.keys.repeat as string, Date.now() + 60_000, legacyKey);
  await redis.zadd(queue.keys.repeat as string, Date.now() + 60_000, brokenLegacyKey);
});

afterAll(async () => {
  await redis.del(queue.keys.repeat as string);
  await queue.obliterate({ force: true });
  await queue.close();
  const keys = await redis.keys(`{${prefix}}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

/** Every key of the bullbeat prefix and of the BullMQ queue, with its serialized value. */
async function snapshot(): Promise<Map<string, string>> {
  const keys = [...(await redis.keys(`{${prefix}}*`)), ...(await redis.keys(`bull:${queueName}:*`))].sort();
  const out = new Map<string, string>();
  for (const key of keys) out.set(key, (await redis.dumpBuffer(key))?.toString('hex') ?? '');
  return out;
}

interface ImportJSON {
  queue: string;
  dryRun: boolean;
  items: {
    action: string;
    id: string;
    source: { kind: string; key: string; name: string };
    mapping: string[];
    trigger?: Record<string, unknown>;
    options?: Record<string, unknown>;
    reason?: string;
  }[];
}

describe('bullbeat import:bullmq', () => {
  it('--dry-run --json prints the mapping of every job scheduler and legacy repeatable job, and writes nothing', async () => {
    const before = await snapshot();
    const run = await runBullbeat(
      ['import:bullmq', '--queue', queueName, '--dry-run', '--json', '--tz', 'Europe/Paris'],
      { env },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await snapshot()).toEqual(before);

    const out = JSON.parse(run.stdout) as ImportJSON;
    expect(out.dryRun).toBe(true);
    const byId = new Map(out.items.map((i) => [i.id, i]));
    expect([...byId.keys()].sort()).toEqual([
      'broken',
      'legacy-cleanup',
      'local-nightly',
      'ping-5s',
      'weekday-report',
    ]);

    const weekday = byId.get('weekday-report');
    expect(weekday?.action).toBe('would-create');
    expect(weekday?.source.kind).toBe('job-scheduler');
    expect(weekday?.trigger).toMatchObject({
      type: 'cron',
      expression: '0 9 * * 1-5',
      timezone: 'America/New_York',
    });
    expect(weekday?.options).toEqual({
      id: 'weekday-report',
      payload: 'plain', // the default: job.data stays what the app's workers read
      maxRuns: 10,
      startAt: startDate,
      endAt: endDate,
    });

    const ping = byId.get('ping-5s');
    expect(ping?.trigger).toMatchObject({ type: 'interval', seconds: 5 });
    expect(ping?.options).toMatchObject({
      data: { target: 'upstream' },
      attempts: 3,
      backoff: { type: 'exponential', delay: 1000 },
      jobOptions: { priority: 2, removeOnComplete: 10 },
    });
    // BullMQ's `offset` keeps the phase: the anchor is on the same 5 s grid as BullMQ's next run.
    expect(ping?.mapping.join('\n')).toMatch(/every 5000 ms → every 5 s/);

    // A pattern with no tz is read in the zone given by --tz.
    expect(byId.get('local-nightly')?.trigger).toMatchObject({ timezone: 'Europe/Paris' });
    expect(byId.get('local-nightly')?.mapping.join('\n')).toMatch(/no tz .* → timezone "Europe\/Paris"/);

    const legacy = byId.get('legacy-cleanup');
    expect(legacy?.source.kind).toBe('legacy-repeatable');
    expect(legacy?.trigger).toMatchObject({ expression: '0 6 * * *', timezone: 'Europe/London' });

    // What cannot be mapped is said, with why.
    const broken = byId.get('broken');
    expect(broken?.action).toBe('not-mapped');
    expect(broken?.reason).toMatch(/0 0 30 2 \*/);
  });

  it('creates the bullbeat schedules, prints the mapping, leaves the BullMQ originals in place; a second run changes nothing', async () => {
    const run = await runBullbeat(['import:bullmq', '--queue', queueName, '--tz', 'UTC'], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^created +weekday-report {2}\(job scheduler "weekday-report", jobs "report"\)$/m,
    );
    expect(run.stdout).toMatch(/limit 10 \(0 run so far\) → maxRuns 10/);
    expect(run.stdout).toMatch(/^NOT MAPPED +broken /m);
    expect(run.stdout).toMatch(/4 created, 0 already there, 1 not mapped/);
    expect(run.stdout).toMatch(/BullMQ originals are untouched and keep running/);
    expect(run.stdout).toMatch(/hand-over: not yet: BullMQ's job scheduler runs each occurrence/);

    const manager = new SchedulerManager({ role: 'client', prefix, connection: REDIS_URL, logger: silent });
    try {
      const weekday = await manager.get('weekday-report');
      expect(weekday?.def).toMatchObject({
        name: 'report',
        queue: queueName,
        source: 'runtime',
        maxRuns: 10,
        startAt: startDate,
        endAt: endDate,
        trigger: { type: 'cron', expression: '0 9 * * 1-5', timezone: 'America/New_York' },
      });
      // held until the hand-over: BullMQ's job scheduler runs each occurrence meanwhile
      expect(weekday?.toJSON()).toMatchObject({ status: 'paused', nextRunTime: null });
      expect(weekday?.toJSON().pauseNote?.note).toMatch(/BullMQ's job scheduler "weekday-report" runs it/);
      const ping = await manager.get('ping-5s');
      expect(ping?.def).toMatchObject({
        name: 'ping',
        data: { target: 'upstream' },
        attempts: 3,
        trigger: { type: 'interval', seconds: 5 },
      });
      // Same phase as BullMQ's grid: bullbeat's interval is anchored on BullMQ's next run.
      const bullmqNext = (await queue.getJobScheduler('ping-5s'))?.next as number;
      const anchor = (ping?.def.trigger as { anchor?: number } | undefined)?.anchor ?? Number.NaN;
      expect((bullmqNext - anchor) % 5000).toBe(0);
      expect(await manager.get('broken')).toBeUndefined();
      // who imported it: the CLI's user and host, as every CLI change (not this process's host:pid);
      // the import's create, and the hold until the hand-over (a pause, its start put back), each so
      const trail = await manager.auditTrail('weekday-report');
      expect(trail.find((e) => e.op === 'create')).toBeDefined();
      for (const entry of trail) {
        expect(entry).toMatchObject({ actor: `cli:${userInfo().username}@${hostname()}`, source: 'cli' });
      }
    } finally {
      await manager.close();
    }

    // The originals are still there.
    for (const id of ['weekday-report', 'ping-5s', 'local-nightly']) {
      expect(await queue.getJobScheduler(id)).toBeDefined();
    }
    expect(await redis.zscore(queue.keys.repeat as string, legacyKey)).not.toBeNull();

    const again = await runBullbeat(['import:bullmq', '--queue', queueName, '--json'], { env });
    const items = (JSON.parse(again.stdout) as ImportJSON).items;
    expect(items.map((i) => i.action).sort()).toEqual(['exists', 'exists', 'exists', 'exists', 'not-mapped']);
  });

  it('an empty queue says so; --queue is required', async () => {
    const empty = await runBullbeat(['import:bullmq', '--queue', `${queueName}-empty`], { env });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe(`no job schedulers or repeatable jobs in BullMQ queue "${queueName}-empty"\n`);
    const missing = await runBullbeat(['import:bullmq'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--queue/);
  });
});
