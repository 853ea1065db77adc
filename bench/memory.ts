// Redis memory at steady load: N schedules every second with a worker, for a few minutes per side, on a
// private redis-server per side (so that nothing else on the box shows in its `used_memory`):
//   - bullbeat: N schedules (interval 1 s, spread over the second), its scheduler and its worker runtime
//     in this process, the schedules' `jobOptions.removeOnComplete` as given (--retention)
//   - BullMQ: N job schedulers (`upsertJobScheduler`, every 1000 ms) and a plain BullMQ Worker, with
//     the same `removeOnComplete`
// Prints `INFO memory` `used_memory` every --sample s, then per side the memory after the warm-up, at the
// end, the growth over the last half of the window (MB/min: ~0 once it levels off), the runs seen and the
// keys. Prints Markdown.
//
//   npm run bench:memory                               (node --import tsx bench/memory.ts)
//   node --import tsx bench/memory.ts --n 500 --seconds 180 --sides bullbeat,bullmq
//   --retention '{"age":3600,"count":1000}' (the default) | 'default' (bullbeat: no removeOnComplete given)
//
// It runs the built code (dist/): the npm script builds first, `npm run build` does it by hand.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pino from 'pino';
import { createWorker } from '../dist/src/queue/create-worker.js';
import { SchedulerManager } from '../dist/src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../dist/src/triggers/interval-trigger.js';

const argv = process.argv;
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const N = Number(arg('n', '500'));
const SECONDS = Number(arg('seconds', '180'));
const WARMUP = Number(arg('warmup', '20'));
const SAMPLE = Number(arg('sample', '15'));
const SIDES = arg('sides', 'bullbeat,bullmq').split(',');
const RETENTION_ARG = arg('retention', '{"age":3600,"count":1000}');
const RETENTION =
  RETENTION_ARG === 'default' ? undefined : (JSON.parse(RETENTION_ARG) as { age: number; count?: number });
const CONCURRENCY = 50;
const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startRedis(): Promise<{ url: string; child: ChildProcess }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
  probe.on('error', () => {});
  for (let i = 0; i < 100; i++) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch {
      await sleep(50);
    }
  }
  await probe.quit();
  return { url, child };
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(info.match(/^used_memory:(\d+)/m)?.[1] ?? 0);
}

interface Side {
  runs: () => number;
  close: () => Promise<void>;
}

async function bullbeat(url: string): Promise<Side> {
  const prefix = `mem-${randomUUID().slice(0, 6)}`;
  const queue = `mem-bb-${randomUUID().slice(0, 6)}`;
  let runs = 0;
  const options = { prefix, defaultQueue: queue, connection: url, logger: silent };
  const m = new SchedulerManager({ ...options, role: 'scheduler' });
  const first = Math.ceil((Date.now() + 3000) / 1000) * 1000;
  const saved: Promise<unknown>[] = [];
  for (let i = 0; i < N; i++) {
    const job = m.schedule(
      () => {
        runs++;
      },
      new IntervalTrigger(1),
      {
        id: `s${i}`,
        name: 'tick',
        startAt: first + Math.floor((i * 1000) / N),
        ...(RETENTION && { jobOptions: { removeOnComplete: RETENTION } }),
      },
    );
    saved.push(job.saved);
  }
  await Promise.all(saved);
  const handle = await createWorker(m, { queues: [queue], concurrency: CONCURRENCY, logger: silent });
  await handle.ready();
  await m.start();
  return {
    runs: () => runs,
    close: async () => {
      await handle.close({ graceMs: 1000 });
      await m.close();
    },
  };
}

async function bullmq(url: string): Promise<Side> {
  const queue = `mem-mq-${randomUUID().slice(0, 6)}`;
  const connection = { url, maxRetriesPerRequest: null };
  const q = new Queue(queue, { connection });
  for (let i = 0; i < N; i++) {
    await q.upsertJobScheduler(
      `s${i}`,
      { every: 1000 },
      { name: 'tick', data: {}, opts: RETENTION ? { removeOnComplete: RETENTION } : {} },
    );
  }
  let runs = 0;
  const w = new Worker(
    queue,
    async () => {
      runs++;
    },
    { connection, concurrency: CONCURRENCY },
  );
  return {
    runs: () => runs,
    close: async () => {
      await w.close();
      await q.close();
    },
  };
}

async function measure(name: string): Promise<string> {
  const { url, child } = await startRedis();
  const redis = new Redis(url);
  try {
    const base = await usedMemory(redis);
    const side = name === 'bullbeat' ? await bullbeat(url) : await bullmq(url);
    await sleep(WARMUP * 1000);
    const samples: { t: number; bytes: number }[] = [];
    const runs0 = side.runs();
    const t0 = Date.now();
    for (let t = 0; t <= SECONDS; t += SAMPLE) {
      await sleep(Math.max(0, t0 + t * 1000 - Date.now()));
      samples.push({ t, bytes: await usedMemory(redis) });
      console.error(
        `${name} t=${t}s used_memory=${(samples.at(-1)!.bytes / 1e6).toFixed(2)} MB runs=${side.runs()}`,
      );
    }
    const runs = side.runs() - runs0;
    const keys = await redis.dbsize();
    await side.close();
    const mid = samples[Math.floor(samples.length / 2)]!;
    const last = samples.at(-1)!;
    const perMin = ((last.bytes - mid.bytes) / 1e6 / Math.max(1, last.t - mid.t)) * 60;
    const mb = (b: number) => ((b - base) / 1e6).toFixed(1);
    return `| ${name} | ${mb(samples[0]!.bytes)} | ${mb(mid.bytes)} | ${mb(last.bytes)} | ${perMin.toFixed(2)} | ${Math.round(runs / SECONDS)} | ${keys.toLocaleString('en')} | ${samples.map((s) => mb(s.bytes)).join(' ')} |`;
  } finally {
    await redis.quit();
    child.kill('SIGKILL');
  }
}

const rows: string[] = [];
for (const side of SIDES) rows.push(await measure(side));
console.log(
  `\n${N} schedules every second with a worker, ${SECONDS} s after a ${WARMUP} s warm-up, removeOnComplete ${RETENTION_ARG}, a private redis-server per side; MB over the empty server's used_memory\n`,
);
console.log(
  `| side | MB at start | MB at half | MB at end | growth over the second half (MB/min) | runs/s | keys at end | every ${SAMPLE} s (MB) |`,
);
console.log('|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
process.exit(0);
