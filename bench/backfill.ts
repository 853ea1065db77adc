// npm run bench:backfill — what exclusions and backfills cost, side by side with their baselines:
// 1. ExceptTrigger.nextFire (a weekday cron minus 20 holidays, a holiday range and weekends by cron)
//    beside the same CronTrigger without exclusions (walks of the same length);
// 2. backfill of N occurrences at the highest rate (check + addBulk + ledger and records) beside
//    BullMQ's own addBulk of N jobs (the floor: what enqueueing alone costs).
// Prints the figures and their ratios. Redis: REDIS_URL or 127.0.0.1:6379.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pino from 'pino';
import { SchedulerManager } from '../src/scheduler/manager/scheduler-manager.js';
import { CronTrigger, ExceptTrigger, IntervalTrigger, type Trigger } from '../src/triggers/index.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_BACKFILL ?? 10_000);
const WALK = Number(process.env.BENCH_WALK ?? 200_000);

function walkRate(trigger: Trigger, steps: number): number {
  let last: number | null = null;
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) last = trigger.nextFire(last, Date.UTC(2026, 0, 1));
  return steps / ((performance.now() - t0) / 1000);
}

function triggers(): void {
  const holidays = Array.from({ length: 20 }, (_, i) => `20${26 + (i % 10)}-${i < 10 ? '12-25' : '01-01'}`);
  const plain = new CronTrigger('*/5 9-17 * * 1-5', { timezone: 'Europe/Paris' });
  const except = new ExceptTrigger(plain, [...holidays, '2026-08-01..2026-08-21', '* * * * 0,6']);
  walkRate(plain, 20_000); // warm up
  walkRate(except, 20_000);
  const a = walkRate(plain, WALK);
  const b = walkRate(except, WALK);
  console.log('nextFire walk (Europe/Paris, */5 9-17 * * 1-5), per second:');
  console.log(`  CronTrigger                        ${(a / 1e3).toFixed(0).padStart(7)} k/s`);
  console.log(
    `  ExceptTrigger (22 entries)         ${(b / 1e3).toFixed(0).padStart(7)} k/s   (${(a / b).toFixed(2)}x the cost)`,
  );
}

async function backfill(): Promise<void> {
  const id = randomUUID().slice(0, 8);
  const prefix = `bbbench-bf-${id}`;
  const queue = `bbbench-bf-q-${id}`;
  const m = new SchedulerManager({
    prefix,
    role: 'client',
    defaultQueue: queue,
    connection: REDIS_URL,
    logger: pino({ level: 'warn' }),
  });
  const redis = new Redis(REDIS_URL);
  const peerQueue = new Queue(`${queue}-peer`, { connection: { url: REDIS_URL } });
  try {
    await m.schedule({ name: 'b' }, new IntervalTrigger(60), { id: 'b' }).saved;
    await m.pause('b');
    const [s] = await redis.time();
    const to = Math.floor(Number(s) / 60) * 60_000;
    const from = to - N * 60_000;
    const t0 = performance.now();
    const r = await m.backfill('b', { from, to, ratePerSecond: 100_000, maxOccurrences: N });
    const ours = performance.now() - t0;
    const t1 = performance.now();
    for (let i = 0; i < N; i += 10_000) {
      await peerQueue.addBulk(
        Array.from({ length: Math.min(10_000, N - i) }, (_, j) => ({
          name: 'b',
          data: { fireAt: from + (i + j) * 60_000 },
          opts: { jobId: `peer-${i + j}` },
        })),
      );
    }
    const peer = performance.now() - t1;
    console.log(`backfill of ${r.enqueued} occurrences (ratePerSecond 100000):`);
    console.log(
      `  bullbeat backfill                  ${ours.toFixed(0).padStart(7)} ms  ${((N / ours) * 1000).toFixed(0)} /s`,
    );
    console.log(
      `  BullMQ addBulk alone (the floor)   ${peer.toFixed(0).padStart(7)} ms  ${((N / peer) * 1000).toFixed(0)} /s   (bullbeat ${(ours / peer).toFixed(2)}x the time)`,
    );
    console.log(`  the default rate (100/s) would take ${(N / 100).toFixed(0)} s`);
  } finally {
    await peerQueue.obliterate({ force: true }).catch(() => undefined);
    await peerQueue.close();
    await new Queue(queue, { connection: { url: REDIS_URL } })
      .obliterate({ force: true })
      .catch(() => undefined);
    await m.remove('b').catch(() => undefined);
    for (const k of await redis.keys(`{${prefix}}*`)) await redis.del(k);
    await m.close();
    await redis.quit();
  }
}

triggers();
await backfill();
process.exit(0);
