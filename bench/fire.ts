// Fire lateness: bullbeat vs BullMQ job schedulers (`upsertJobScheduler` with `every: 1000`), side by
// side on the local Redis. N schedules each firing every second (phases spread over the second), the
// same plain BullMQ Worker settings for both; lateness = handler start minus the intended fire time.
// Also: the highest fire rate bullbeat sustains (enqueue side), and Redis memory per idle schedule.
//
//   npm run bench:fire                       (node --import tsx bench/fire.ts)
//   node --import tsx bench/fire.ts --n 1000 --seconds 5 --rates 10000 --rate-seconds 4   (quicker)
//   --n '' / --rates '' / --ceiling 0 / --memory 0 skip a part; --runtime-worker adds runs with
//   bullbeat's own worker runtime (createWorker) in place of the plain BullMQ Worker.
//
// Prints Markdown, ready for BENCHMARKS.md.
// It runs the built code (dist/, what users run; tsx's transform of src/ adds a cost of its own to
// every function it creates): the npm script builds first, `npm run build` does it by hand.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pino from 'pino';
import { createWorker } from '../dist/src/queue/create-worker.js';
import type { RunContext } from '../dist/src/queue/pipeline.js';
import { SchedulerManager } from '../dist/src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../dist/src/triggers/interval-trigger.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const argv = process.argv;
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const NS = arg('n', '1000,10000').split(',').filter(Boolean).map(Number);
const SECONDS = Number(arg('seconds', '20'));
const WARMUP = Number(arg('warmup', '3'));
const CONCURRENCY = Number(arg('concurrency', '200'));
const RATES = arg('rates', '5000,7500,10000,15000').split(',').filter(Boolean).map(Number);
const RATE_SECONDS = Number(arg('rate-seconds', '6'));
const KEEP_SEC = 5; // finished jobs kept 5 s (both sides), so the bench does not fill Redis
const SCHEDULER = fileURLToPath(new URL('./fire-scheduler.ts', import.meta.url));
const redis = new Redis(REDIS_URL);
const silent = pino({ level: 'silent' });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Redis's own CPU time so far (user + system), in µs. */
async function redisCpuUs(): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(info.match(new RegExp(`${name}:(\\S+)`))?.[1] ?? 0);
  return Math.round((field('used_cpu_user') + field('used_cpu_sys')) * 1e6);
}
/** Redis's CPU time (µs) over the Redis-time window [from, to). */
async function cpuOver(from: number, to: number): Promise<number> {
  await sleepUntil(from);
  const cpu0 = await redisCpuUs();
  await sleepUntil(to);
  return (await redisCpuUs()) - cpu0;
}
/** Sleep until Redis time `at`, asking Redis rarely (the bench process also hosts the worker). */
async function sleepUntil(at: number): Promise<void> {
  for (let left = at - (await redisNow()); left > 0; left = at - (await redisNow())) {
    await sleep(left > 50 ? Math.min(left - 20, 1000) : left);
  }
}
async function redisNow(): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}
function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
function summary(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p99: pct(s, 99), max: s[s.length - 1] ?? Number.NaN };
}
async function deleteKeys(pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 5000);
    cursor = next;
    if (batch.length > 0) await redis.unlink(...batch);
  } while (cursor !== '0');
}
async function keysMemory(pattern: string): Promise<number> {
  let total = 0;
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 5000);
    cursor = next;
    const pipe = redis.pipeline();
    for (const k of batch) pipe.memory('USAGE', k, 'SAMPLES', 0);
    for (const [, v] of (await pipe.exec()) ?? []) total += Number(v ?? 0);
  } while (cursor !== '0');
  return total;
}

async function dropQueue(name: string): Promise<void> {
  const q = new Queue(name, { connection: { url: REDIS_URL } });
  await q.obliterate({ force: true }).catch(() => undefined);
  await q.close();
  await deleteKeys(`bull:${name}*`);
}

/** Create N bullbeat schedules (every second, phase i/N of a second) under a fresh prefix. */
async function createBullbeat(n: number, prefix: string, queue: string, startAt?: number): Promise<void> {
  const m = new SchedulerManager({
    prefix,
    defaultQueue: queue,
    connection: REDIS_URL,
    logger: silent,
    role: 'client',
  });
  const jobs = [];
  for (let i = 0; i < n; i++) {
    jobs.push(
      m.schedule({ name: 'tick' }, new IntervalTrigger(1, { anchor: Math.floor((i * 1000) / n) }), {
        id: `s${i}`,
        ...(startAt !== undefined && { startAt }),
        jobOptions: { removeOnComplete: { age: KEEP_SEC }, removeOnFail: { age: KEEP_SEC } },
      }).saved,
    );
    if (jobs.length >= 2000) await Promise.all(jobs.splice(0));
  }
  await Promise.all(jobs);
  await m.close();
}

/** Create N BullMQ job schedulers (every 1000 ms, offset i/N of a second). */
async function createBullmq(n: number, queue: string): Promise<Queue> {
  const q = new Queue(queue, { connection: { url: REDIS_URL } });
  for (let i = 0; i < n; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, n - i) }, (_, j) =>
        q.upsertJobScheduler(
          `s${i + j}`,
          { every: 1000, offset: Math.floor(((i + j) * 1000) / n) },
          {
            name: 'tick',
            data: {},
            opts: { removeOnComplete: { age: KEEP_SEC }, removeOnFail: { age: KEEP_SEC } },
          },
        ),
      ),
    );
  }
  return q;
}

/** The intended fire time of a BullMQ job scheduler's job: its scheduled millis plus the offset. */
function bullmqIntended(job: Job): number {
  const opts = job.opts as { prevMillis?: number; repeat?: { offset?: number } };
  if (typeof opts.prevMillis === 'number') return opts.prevMillis + (opts.repeat?.offset ?? 0);
  return job.timestamp + (job.opts.delay ?? 0);
}

function worker(queue: string, intended: (job: Job) => number, from: () => number, to: () => number) {
  const lateness: number[] = [];
  const w = new Worker(
    queue,
    async (job: Job) => {
      const at = intended(job);
      if (at >= from() && at < to()) lateness.push(Date.now() - at);
    },
    { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, concurrency: CONCURRENCY },
  );
  return { lateness, w };
}

function spawnScheduler(vars: Record<string, string>): {
  child: ChildProcess;
  out: Promise<string>;
  ready: Promise<void>;
} {
  const child = spawn(
    process.execPath,
    [...(process.env.SCHEDULER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', SCHEDULER],
    {
      env: { ...process.env, REDIS_URL, KEEP_SEC: String(KEEP_SEC), ...vars },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let buf = '';
  let onReady: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  const out = new Promise<string>((resolve) => {
    child.stdout!.on('data', (d) => {
      buf += String(d);
      if (buf.includes('ready\n')) onReady();
    });
    child.on('exit', () => resolve(buf));
  });
  return { child, out, ready };
}

/**
 * Run one scheduler replica over the Redis-time window [from, to) plus `tailMs`: Redis's CPU in the
 * window, and what the replica reports (the enqueue lateness of the window's fires, its CPU per fire).
 */
async function runScheduler(prefix: string, from: number, to: number, tailMs: number) {
  const sched = spawnScheduler({ PREFIX: prefix, FROM: String(from), TO: String(to) });
  await sched.ready;
  const redisCpu = await cpuOver(from, to);
  await sleepUntil(to + tailMs);
  sched.child.kill('SIGTERM');
  const text = await sched.out;
  if (process.env.FIRE_DEBUG)
    console.error(
      text
        .split('\n')
        .filter((l) => !l.includes('"lateness"'))
        .join('\n'),
    );
  const out = JSON.parse(text.split('\n').find((l) => l.startsWith('{"lateness"'))!) as {
    lateness: number[];
    cpuPerFireUs: number;
  };
  return { redisCpu, out };
}

/**
 * bullbeat's own worker runtime (`createWorker`): each run also takes and gives back its overlap
 * lease and writes its `running` and `succeeded` records. The handler is defined on a client-role
 * manager that is never started (so nothing is saved).
 */
async function runtimeWorker(prefix: string, queue: string, from: number, to: number) {
  const lateness: number[] = [];
  const m = new SchedulerManager({
    prefix,
    defaultQueue: queue,
    connection: REDIS_URL,
    logger: silent,
    role: 'client',
  });
  m.schedule(
    (ctx: RunContext) => {
      if (ctx.fireAt >= from && ctx.fireAt < to) lateness.push(Date.now() - ctx.fireAt);
    },
    new IntervalTrigger(3600),
    { id: 'bench-handler', name: 'tick' },
  );
  const handle = await createWorker(m, { queues: [queue], concurrency: CONCURRENCY, logger: silent });
  await handle.ready();
  return {
    lateness,
    close: async () => {
      await handle.close();
      await m.close();
    },
  };
}

async function runBullbeat(n: number, runtime = false) {
  const id = randomUUID().slice(0, 8);
  const prefix = `bench-${id}`;
  const queue = `bench-bb-${id}`;
  const t0 = await redisNow();
  await createBullbeat(n, prefix, queue, t0 + 3000); // first fires once the scheduler process is up
  const from = t0 + 3000 + WARMUP * 1000;
  const to = from + SECONDS * 1000;
  const plain = () => {
    const { lateness, w } = worker(
      queue,
      (job) => (job.data as { fireAt: number }).fireAt,
      () => from,
      () => to,
    );
    return { lateness, close: () => w.close() };
  };
  const { lateness, close } = runtime ? await runtimeWorker(prefix, queue, from, to) : plain();
  const { redisCpu, out } = await runScheduler(prefix, from, to, 1500);
  await close();
  await deleteKeys(`{${prefix}}*`);
  await dropQueue(queue);
  return {
    handler: summary(lateness),
    enqueue: summary(out.lateness),
    expected: n * SECONDS,
    redisUs: redisCpu / (n * SECONDS),
  };
}

async function runBullmq(n: number) {
  const queue = `bench-mq-${randomUUID().slice(0, 8)}`;
  const q = await createBullmq(n, queue);
  const t0 = await redisNow();
  const from = t0 + WARMUP * 1000;
  const to = from + SECONDS * 1000;
  const { lateness, w } = worker(
    queue,
    bullmqIntended,
    () => from,
    () => to,
  );
  const redisCpu = await cpuOver(from, to);
  while ((await redisNow()) < to + 1500) await sleep(200);
  await w.close();
  await q.obliterate({ force: true }).catch(() => undefined);
  await q.close();
  await deleteKeys(`bull:${queue}*`);
  return { handler: summary(lateness), expected: n * SECONDS, redisUs: redisCpu / (n * SECONDS) };
}

/** Enqueue-side lateness of bullbeat alone (no worker) at `rate` fires per second. */
async function runRate(rate: number) {
  const id = randomUUID().slice(0, 8);
  const prefix = `bench-${id}`;
  const queue = `bench-rate-${id}`;
  const t0 = await redisNow();
  await createBullbeat(rate, prefix, queue, t0 + 4000);
  const from = t0 + 5000;
  const to = from + RATE_SECONDS * 1000;
  const { redisCpu, out } = await runScheduler(prefix, from, to, 1000);
  await deleteKeys(`{${prefix}}*`);
  await dropQueue(queue);
  const s = summary(out.lateness);
  const fires = Math.max(1, s.n);
  return { rate, ...s, achieved: s.n / RATE_SECONDS, redisUs: redisCpu / fires, schedUs: out.cpuPerFireUs };
}

async function memory(n: number) {
  const id = randomUUID().slice(0, 8);
  const prefix = `bench-mem-${id}`;
  await createBullbeat(n, prefix, `bench-mem-${id}`);
  const bb = await keysMemory(`{${prefix}}*`);
  await deleteKeys(`{${prefix}}*`);
  const queue = `bench-memq-${id}`;
  const q = await createBullmq(n, queue);
  const mq = await keysMemory(`bull:${queue}*`);
  await q.obliterate({ force: true }).catch(() => undefined);
  await q.close();
  await deleteKeys(`bull:${queue}*`);
  return { bullbeat: bb / n, bullmq: mq / n };
}

/**
 * What BullMQ itself costs here, with no scheduler at all: `addBulk` of 1,000-job batches into a
 * queue (four in flight: the fire loop's dispatch ceiling), then the bench's worker draining it. The Redis CPU per job of both together bounds the
 * end-to-end rate of any scheduler that enqueues one BullMQ job per occurrence on one Redis core.
 */
async function ceiling(jobs: number) {
  const queue = `bench-ceiling-${randomUUID().slice(0, 8)}`;
  const q = new Queue(queue, { connection: { url: REDIS_URL } });
  const opts = { removeOnComplete: { age: KEEP_SEC }, removeOnFail: { age: KEEP_SEC } };
  let cpu0 = await redisCpuUs();
  let node0 = process.cpuUsage();
  let t0 = performance.now();
  let next = 0;
  // Four batches in flight, as a dispatcher that does nothing else would.
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < jobs) {
        const i = next;
        next += 1000;
        const batch = Array.from({ length: Math.min(1000, jobs - i) }, (_, j) => ({
          name: 'tick',
          data: { fireAt: 0, n: i + j },
          opts: { ...opts, jobId: `c${i + j}` },
        }));
        await q.addBulk(batch);
      }
    }),
  );
  const addNode = process.cpuUsage(node0);
  const add = {
    rate: jobs / ((performance.now() - t0) / 1000),
    redisUs: ((await redisCpuUs()) - cpu0) / jobs,
    nodeUs: (addNode.user + addNode.system) / jobs,
  };
  let done = 0;
  let finish: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  cpu0 = await redisCpuUs();
  node0 = process.cpuUsage();
  t0 = performance.now();
  const w = new Worker(
    queue,
    async () => {
      if (++done === jobs) finish();
    },
    { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, concurrency: CONCURRENCY },
  );
  await finished;
  const seconds = (performance.now() - t0) / 1000;
  const node = process.cpuUsage(node0);
  const drain = {
    rate: jobs / seconds,
    redisUs: ((await redisCpuUs()) - cpu0) / jobs,
    workerUs: (node.user + node.system) / jobs,
  };
  await w.close();
  await q.obliterate({ force: true }).catch(() => undefined);
  await q.close();
  await deleteKeys(`bull:${queue}*`);
  return { add, drain };
}

const f = (v: number) => (Number.isNaN(v) ? '–' : String(Math.round(v)));
const started = new Date().toISOString();
console.log(
  `## Fire lateness\n\n${started}, \`${['node --import tsx bench/fire.ts', ...argv.slice(2)].join(' ')}\`, Redis ${(await redis.info('server')).match(/redis_version:(\S+)/)?.[1]}, ${SECONDS} s per run after ${WARMUP} s warm-up, worker: one BullMQ Worker, concurrency ${CONCURRENCY}, no-op handler; schedules every 1 s, phases spread evenly over the second.\n`,
);
console.log(
  '| N schedules (fires/s) | bullbeat p50 / p99 / max (ms) | BullMQ job schedulers p50 / p99 / max (ms) | p99 ratio | runs seen bullbeat / BullMQ (expected) | bullbeat enqueue p50 / p99 (ms) | Redis CPU per run bullbeat / BullMQ (µs) |',
);
console.log('|---|---|---|---|---|---|---|');
for (const n of NS) {
  const bb = await runBullbeat(n);
  const mq = argv.includes('--skip-bullmq') ? undefined : await runBullmq(n);
  const ratio = mq ? (mq.handler.p99 / Math.max(1, bb.handler.p99)).toFixed(1) : '–';
  console.log(
    `| ${n} | ${f(bb.handler.p50)} / ${f(bb.handler.p99)} / ${f(bb.handler.max)} | ${mq ? `${f(mq.handler.p50)} / ${f(mq.handler.p99)} / ${f(mq.handler.max)}` : '–'} | ${ratio}x | ${bb.handler.n} / ${mq?.handler.n ?? '–'} (${bb.expected}) | ${f(bb.enqueue.p50)} / ${f(bb.enqueue.p99)} | ${f(bb.redisUs)} / ${mq ? f(mq.redisUs) : '–'} |`,
  );
}
if (argv.includes('--runtime-worker') && NS.length > 0) {
  console.log(
    `\nbullbeat with its own worker runtime (\`createWorker\`, concurrency ${CONCURRENCY}: each run also takes and releases its overlap lease and writes its running and succeeded records):\n`,
  );
  console.log(
    '| N schedules (fires/s) | handler p50 / p99 / max (ms) | runs seen (expected) | Redis CPU per run (µs) |',
  );
  console.log('|---|---|---|---|');
  for (const n of NS) {
    const rt = await runBullbeat(n, true);
    console.log(
      `| ${n} | ${f(rt.handler.p50)} / ${f(rt.handler.p99)} / ${f(rt.handler.max)} | ${rt.handler.n} (${rt.expected}) | ${f(rt.redisUs)} |`,
    );
  }
}
if (RATES.length > 0) {
  console.log(
    `\nbullbeat alone (one scheduler process, no worker), ${RATE_SECONDS} s per rate: enqueue lateness (estimated Redis time when the occurrence's \`addBulk\` starts, minus its fire time); CPU of Redis and of the scheduler process over the window, per fire\n`,
  );
  console.log(
    '| target fires/s | achieved fires/s | p50 / p99 / max (ms) | Redis CPU per fire (µs) | scheduler CPU per fire (µs) |',
  );
  console.log('|---|---|---|---|---|');
  let sustained = 0;
  for (const rate of RATES) {
    const r = await runRate(rate);
    console.log(
      `| ${rate} | ${Math.round(r.achieved)} | ${f(r.p50)} / ${f(r.p99)} / ${f(r.max)} | ${f(r.redisUs)} | ${f(r.schedUs)} |`,
    );
    if (r.achieved >= 0.98 * rate && r.p99 < 200) sustained = Math.max(sustained, rate);
  }
  console.log(
    `\nHighest rate sustained (≥ 98 % of the target enqueued in time, enqueue p99 < 200 ms): ${sustained || 'none of the rates tried'} fires/s.`,
  );
}
const ceilingJobs = Number(arg('ceiling', '50000'));
if (ceilingJobs > 0) {
  const c = await ceiling(ceilingJobs);
  const perJob = c.add.redisUs + c.drain.redisUs;
  console.log(
    `\nBullMQ alone, no scheduler (${ceilingJobs} jobs): \`addBulk\` in batches of 1,000, four in flight, ran ${f(c.add.rate)} jobs/s at ${f(c.add.redisUs)} µs of Redis CPU and ${f(c.add.nodeUs)} µs of client CPU per job (the dispatch ceiling); the same worker drained them at ${f(c.drain.rate)} jobs/s, ${f(c.drain.redisUs)} µs of Redis CPU and ${f(c.drain.workerUs)} µs of worker CPU per job. Enqueue and run together cost Redis ${f(perJob)} µs per job: one Redis core carries at most ${f(1e6 / perJob)} jobs/s end to end, whatever schedules them.`,
  );
}
const memN = Number(arg('memory', '10000'));
if (memN > 0) {
  const mem = await memory(memN);
  console.log(
    `\nRedis memory per idle schedule (MEMORY USAGE of the deployment's keys / N, N = ${memN}): bullbeat ${Math.round(mem.bullbeat)} B, BullMQ job scheduler ${Math.round(mem.bullmq)} B (its scheduler entry plus the next delayed job it always keeps).`,
  );
}
await redis.quit();
process.exit(0);
