// The list a user opens first, at scale: N schedules (default 100,000) on a Redis given by REDIS_URL (a
// private redis-server: the bench flushes it), then the times of the dashboard's and the API's list reads,
// each the median of 5 after one warm-up:
//   the first page by name; filtered by status (paused: a tenth, active), by queue (a quarter), by search
//   text (1 % of the names; none at all: a walk of every name); a walk of every id by name (cursor pages,
//   as the dashboard's health reads them); the status counts and the queues (the dashboard's strip and
//   queue list, a fresh index each time as a first open); with `--health`, the fleet page's health
//   (late, failing, errored), whose failing check reads every active schedule.
// And memory per idle schedule (`used_memory` growth / count): 10,000 of bench:scale's unlabelled hourly
// schedules with the default audit trail, 10,000 without, and the N (without the trail; a label each, a
// tenth paused).
//
//   REDIS_URL=redis://127.0.0.1:6401 node --import tsx bench/list-filters.ts [--n 100000] [--queues 4] [--health]
//
// `--queues Q` spreads the N over Q queues (default 4); the queue filter reads `q1`.
//
// Runs against this tree's code; run it from an older tree's copy to measure that code the same way.
import { loadavg } from 'node:os';
import pino from 'pino';
import { internalsOf } from '../src/scheduler/index.js';
import type { ScheduleManyItem } from '../src/scheduler/manager/schedule-many.js';
import { SchedulerManager } from '../src/scheduler/manager/scheduler-manager.js';
import { openRedis, redisTarget } from '../src/store/connection/redis-target.js';
import { namePage, ScheduleIndex } from '../src/store/index.js';

const argv = process.argv;
const N = Number(argv[argv.indexOf('--n') + 1] ?? 100_000) || 100_000;
const QUEUES = argv.includes('--queues') ? Number(argv[argv.indexOf('--queues') + 1]) : 4;
if (!Number.isInteger(QUEUES) || QUEUES < 1) throw new Error('--queues: a whole number from 1');
const URL = process.env.REDIS_URL;
if (!URL || URL.endsWith(':6379'))
  throw new Error('REDIS_URL: a private redis-server (the bench flushes it)');
const silent = pino({ level: 'silent' });
const log = (text: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${text}`);
const f = (n: number) => Math.round(n).toLocaleString('en-US');
const redis = openRedis(redisTarget(URL));
const usedMemory = async () => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? 0);

const manager = (prefix: string, audit: boolean) =>
  new SchedulerManager({
    prefix,
    connection: URL,
    logger: silent,
    role: 'client',
    defaultQueue: `${prefix}-q`,
    ...(audit ? {} : { auditLimit: 0 }),
  });

const item = (i: number): ScheduleManyItem => ({
  target: { name: `report-${String(i % 1000).padStart(3, '0')}`, queue: `q${i % QUEUES}` },
  trigger: { type: 'cron', expression: `${i % 60} ${Math.floor(i / 60) % 60} * * * *` },
  options: { id: `s${i}`, labels: { grp: i % 10 === 0 ? 'p' : 'a' } },
});

/** bench:scale's idle schedule: hourly at second `i % 3600`, no label, the default queue. */
const bare = (i: number): ScheduleManyItem => ({
  target: { name: 'tick' },
  trigger: { type: 'cron', expression: `${i % 60} ${Math.floor(i / 60) % 60} * * * *` },
  options: { id: `s${i}` },
});

async function create(m: SchedulerManager, n: number, items = item): Promise<void> {
  for (let from = 0; from < n; from += 20_000) {
    const r = await m.scheduleMany(
      Array.from({ length: Math.min(20_000, n - from) }, (_, k) => items(from + k)),
    );
    if (r.failed.length > 0) throw new Error(`scheduleMany: ${r.failed[0]?.error}`);
  }
}

async function perSchedule(audit: boolean, n: number): Promise<number> {
  await redis.flushall();
  const before = await usedMemory();
  const m = manager(`mem-${audit ? 'audit' : 'bare'}`, audit);
  await create(m, n, bare);
  const per = ((await usedMemory()) - before) / n;
  await m.close();
  return per;
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[2]!;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function main(): Promise<void> {
  log(`load ${load()}`);
  const withTrail = await perSchedule(true, 10_000);
  const noTrail = await perSchedule(false, 10_000);
  log(`memory per idle schedule: ${f(withTrail)} B with the audit trail, ${f(noTrail)} B without`);
  await redis.flushall();
  const m = manager('list', false);
  const before = await usedMemory();
  const t0 = performance.now();
  await create(m, N);
  const createS = (performance.now() - t0) / 1000;
  const paused = await m.select('grp=p').pause();
  const perN = ((await usedMemory()) - before) / N;
  log(`${f(N)} created in ${createS.toFixed(1)} s, ${f(paused.count)} paused; ${f(perN)} B each`);
  const { redis: r, keys } = internalsOf(m);
  // a first open: this tree's index reads at each call; an older tree's takes (redis, keys, cacheMs, now,
  // fullReloadMs) and loads at its first read
  const Index = ScheduleIndex as unknown as new (...args: unknown[]) => ScheduleIndex;
  const freshIndex = () => new Index(r, keys, 0, Date.now, 0);
  const rows: [string, number, string][] = [];
  const measure = async (
    label: string,
    fn: () => Promise<{ total?: number; items?: unknown[] } | unknown>,
  ) => {
    let shown = '';
    const ms = await median(async () => {
      const out = (await fn()) as { total?: number; totalAtLeast?: boolean };
      if (out && typeof out === 'object' && 'total' in out)
        shown = `total ${out.totalAtLeast ? '≥ ' : ''}${f(out.total ?? 0)}`;
    });
    rows.push([label, ms, shown]);
    log(`${label}: ${ms.toFixed(0)} ms ${shown}`);
  };
  await measure('first page by name (limit 50)', () => m.listPage({ limit: 50 }));
  await measure('status paused (limit 50)', () => m.listPage({ status: 'paused', limit: 50 }));
  await measure('status active (limit 50)', () => m.listPage({ status: 'active', limit: 50 }));
  await measure('queue q1 (limit 50)', () => m.listPage({ queue: QUEUES > 1 ? 'q1' : 'q0', limit: 50 }));
  await measure('search "report-07" (1 %, limit 50)', () => m.listPage({ search: 'report-07', limit: 50 }));
  await measure('search "nomatch" (none, limit 50)', () => m.listPage({ search: 'nomatch', limit: 50 }));
  await measure('walk of every id by name (cursor pages of 1,000)', async () => {
    let n = 0;
    for (let cursor: string | undefined = '0'; cursor !== undefined; ) {
      const page = await namePage(r, keys, cursor, 1000);
      n += page.ids.length;
      cursor = page.cursor;
    }
    return { total: n };
  });
  await measure('dashboard: status counts (fresh index)', () => freshIndex().statusCounts());
  await measure('dashboard: queues (fresh index)', () => freshIndex().queues());
  await measure('dashboard: page 1, status paused (fresh index)', () =>
    freshIndex().page({ status: 'paused', offset: 0, limit: 50 }),
  );
  // the fleet page's and `bullbeat status`'s health: its failing check reads every active schedule's view
  // (definition, state, due time, counters, newest records: none here), CHUNK at a time
  if (argv.includes('--health')) {
    const { DeploymentHealthReader, ScheduleReader } = await import('../dashboard/internal.js');
    const reader = new ScheduleReader(r, keys, internalsOf(m).options.historyLimit);
    const health = () =>
      new DeploymentHealthReader(r, keys, freshIndex(), reader, { lateThresholdMs: 1000, cacheMs: 0 }).read();
    await measure('dashboard: fleet health (late, failing, errored; not cached)', health);
    // one more, for what it costs Redis: commands (INFO commandstats) and CPU (used_cpu_user + _sys)
    const cost = async () => {
      const [stats, cpu] = await Promise.all([redis.info('commandstats'), redis.info('cpu')]);
      const calls = [...stats.matchAll(/calls=(\d+)/g)].reduce((a, x) => a + Number(x[1]), 0);
      const used = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(cpu)?.[1] ?? 0);
      return { calls, cpuMs: (used('used_cpu_user') + used('used_cpu_sys')) * 1000 };
    };
    const before = await cost();
    await health();
    const after = await cost();
    const label = 'dashboard: fleet health, its cost to Redis';
    const shown = `${f(after.calls - before.calls)} commands, ${f(after.cpuMs - before.cpuMs)} ms of Redis CPU`;
    rows.push([label, Number.NaN, shown]);
    log(`${label}: ${shown}`);
  }
  await m.close();
  await redis.flushall();
  await redis.quit();
  console.log(`\nload ${load()} (1, 5, 15 min); ${f(N)} schedules, ${f(N / 10)} paused, ${f(QUEUES)} queues`);
  console.log(
    `memory per idle schedule: ${f(withTrail)} B with the default audit trail, ${f(noTrail)} B without (10,000 each, unlabelled); ${f(perN)} B each of the ${f(N)} (a label, no trail)`,
  );
  console.log('\n| read | median of 5 | |\n|---|---|---|');
  for (const [label, ms, shown] of rows)
    console.log(`| ${label} | ${Number.isNaN(ms) ? '-' : `${ms.toFixed(0)} ms`} | ${shown} |`);
}

await main();
