// npm run bench:dashboard — the dashboard with 10,000 schedules in Redis: the list API's first page,
// a search, the schedules page, beside Bull Board's own queue page on the same data.
// Sequential requests over real HTTP on 127.0.0.1; prints median and p95 (ms) and a markdown table.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import pino from 'pino';
import { startDashboard } from '../dashboard/index.js';
import { internalsOf } from '../src/scheduler/index.js';
import { SchedulerManager } from '../src/scheduler/manager/scheduler-manager.js';
import { CronTrigger, IntervalTrigger } from '../src/triggers/index.js';

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 10_000);
const QUEUES = 10;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50);
const WARMUP = 5;
const TOKEN = 'bench-token';
const KINDS = ['report', 'sync', 'cleanup', 'invoice', 'backup'];

const id = randomUUID().slice(0, 8);
const prefix = `bbbench-${id}`;
const queues = Array.from({ length: QUEUES }, (_, i) => `bbbench-${id}-q${i}`);
const logger = pino({ level: 'warn' });

async function seed(scheduler: SchedulerManager): Promise<void> {
  const started = performance.now();
  const batch = 500;
  for (let i = 0; i < SCHEDULES; i += batch) {
    const saves: Promise<void>[] = [];
    for (let j = i; j < Math.min(SCHEDULES, i + batch); j++) {
      const name = `${KINDS[j % KINDS.length]}-${String(j).padStart(5, '0')}`;
      const trigger =
        j % 2 === 0
          ? new IntervalTrigger(60 + (j % 3600))
          : new CronTrigger(`${j % 60} ${j % 24} * * *`, { timezone: 'Europe/Paris' });
      saves.push(scheduler.schedule({ name, queue: queues[j % QUEUES]! }, trigger).saved);
    }
    await Promise.all(saves);
  }
  // three recorded occurrences per schedule and one job per schedule on its queue
  const now = Date.now();
  const records: Promise<void>[] = [];
  for (let j = 0; j < SCHEDULES; j++) {
    const name = `${KINDS[j % KINDS.length]}-${String(j).padStart(5, '0')}`;
    for (let k = 3; k >= 1; k--) {
      const fireAt = now - k * 60_000;
      const failed = (j + k) % 7 === 0;
      records.push(
        internalsOf(scheduler).history.merge(
          name,
          fireAt,
          false,
          {
            kind: 'scheduled',
            outcome: failed ? 'failed' : 'succeeded',
            enqueuedAt: fireAt + 3,
            startedAt: fireAt + 10,
            finishedAt: fireAt + 250,
            attempts: 1,
            ...(failed && { error: 'Error: upstream timed out' }),
          },
          failed ? ['runs', 'errors'] : ['runs'],
        ),
      );
    }
    if (records.length >= 3000) await Promise.all(records.splice(0));
  }
  await Promise.all(records);
  for (const [qi, queue] of queues.entries()) {
    const jobs = [];
    for (let j = qi; j < SCHEDULES; j += QUEUES) {
      const name = `${KINDS[j % KINDS.length]}-${String(j).padStart(5, '0')}`;
      jobs.push({
        name,
        data: { scheduleId: name, fireAt: now, kind: 'scheduled' },
        opts: { jobId: `bb-${name}-${now}` },
      });
    }
    await internalsOf(scheduler).queue(queue).addBulk(jobs);
  }
  console.error(
    `seeded ${SCHEDULES} schedules, ${SCHEDULES * 3} records, ${SCHEDULES} jobs in ${QUEUES} queues in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

function stats(samples: number[]): { median: number; p95: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return { median: at(0.5), p95: at(0.95) };
}

async function time(
  url: string,
  check: (status: number, body: string) => void,
): Promise<{ median: number; p95: number }> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    const body = await res.text();
    const dt = performance.now() - t0;
    check(res.status, body);
    if (i >= WARMUP) samples.push(dt);
  }
  return stats(samples);
}

async function cleanup(): Promise<void> {
  const redis = new Redis({ host: '127.0.0.1', port: 6379 });
  for (const pattern of [`{${prefix}}*`, `bull:bbbench-${id}-*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 2000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  }
  redis.disconnect();
}

async function main(): Promise<void> {
  const scheduler = new SchedulerManager({ prefix, role: 'client', logger, defaultQueue: queues[0]! });
  const rows: [string, { median: number; p95: number }][] = [];
  try {
    await seed(scheduler);
    for (const cacheMs of [2000, 0]) {
      const d = await startDashboard({
        scheduler,
        token: TOKEN,
        port: 0,
        host: '127.0.0.1',
        cacheMs,
        env: {},
        logger,
      });
      const ok = (status: number, body: string) => {
        if (status !== 200) throw new Error(`HTTP ${status}: ${body.slice(0, 200)}`);
      };
      const label = cacheMs === 0 ? ' (statuses re-read from Redis on every request)' : '';
      const hits = JSON.parse(
        await (
          await fetch(`${d.url}/api/schedules?q=invoice-099&limit=1`, {
            headers: { authorization: `Bearer ${TOKEN}` },
          })
        ).text(),
      ).total;
      rows.push([
        `list API, first page of 50${label}`,
        await time(`${d.url}/api/schedules?limit=50`, (s, b) => {
          ok(s, b);
          if (JSON.parse(b).total !== SCHEDULES) throw new Error('wrong total');
        }),
      ]);
      rows.push([
        `list API, search "invoice-099" (${hits} hits)${label}`,
        await time(`${d.url}/api/schedules?q=invoice-099`, (s, b) => {
          ok(s, b);
          if (JSON.parse(b).total < 1) throw new Error('no hit');
        }),
      ]);
      rows.push([`schedules page / (HTML, 50 rows)${label}`, await time(`${d.url}/`, ok)]);
      if (cacheMs !== 0) {
        rows.push([
          `Bull Board queue page API (1 of ${QUEUES} queues, ${SCHEDULES / QUEUES} jobs, latest, 10/page)`,
          await time(
            `${d.url}/admin/queues/api/queues?activeQueue=${queues[0]}&status=latest&page=1&jobsPerPage=10`,
            ok,
          ),
        ]);
      }
      await d.close();
    }
  } finally {
    await scheduler.close();
    await cleanup();
  }
  console.log(
    `\n${SCHEDULES} schedules, ${REQUESTS} sequential requests each (after ${WARMUP} warm-up), node ${process.version}\n`,
  );
  console.log('| request | median (ms) | p95 (ms) |');
  console.log('|---|---:|---:|');
  for (const [name, s] of rows) console.log(`| ${name} | ${s.median.toFixed(1)} | ${s.p95.toFixed(1)} |`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
