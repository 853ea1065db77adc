// Aligned bursts: N schedules every second, all due at the same instant (the top of every second), side
// by side in one run on the same Redis, and an overload row. Lateness = handler start minus the
// intended fire time. Columns:
//   - bullbeat + its worker runtime (`createWorker`)
//   - bullbeat scheduler + a plain BullMQ Worker
//   - BullMQ job schedulers (`upsertJobScheduler`, every 1000 ms, aligned) + a plain BullMQ Worker
//   - the physical limit: a producer process that `addBulk`s the N jobs at each second itself (no
//     scheduler at all), drained by the plain Worker and by the worker runtime
// Printed per column: p50 / p99 / max lateness, runs seen vs expected, queue depth at the end (jobs
// still waiting right after the window), Redis CPU per run (INFO used_cpu delta over the
// window / runs seen), and for bullbeat the burst enqueue time (fire instant → its last job in the
// queue), the occurrences coalesced by backpressure and the Redis cost of the backpressure look-ups.
//
//   npm run bench:burst                               (node --import tsx bench/burst.ts)
//   node --import tsx bench/burst.ts --n 1000 --seconds 5 --overload 0      (quicker)
//   --n '' skips the aligned rows, --overload 0 the overload row, --columns runtime,plain,bullmq,limit
//   the overload rows: bullbeat with each of the columns' consumers (runtime, plain), then BullMQ
//   --burners K: the overload row again with K CPU burners (busy child processes) beside it (a loaded box)
//   env: BURST_COMMANDS=1 prints the commands Redis ran per run (stderr); BURST_RECORD_LAG the worker runtime's recordLagMs; BURST_OUTCOME_HOLD its outcomeHoldMs (0, the default); BURST_BATCH the scheduler's claimBatch (500, the default); BURST_DEBUG=1 prints when each
//   claim came; BENCH_CHILD_ARGS node flags for the child processes (`--cpu-prof --cpu-prof-dir=DIR`)
//
// Prints Markdown, ready for BENCHMARKS.md.
// It runs the built code (dist/, what users run; tsx's transform of src/ adds a cost of its own to
// every function it creates): the npm script builds first, `npm run build` does it by hand.
import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
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
const list = (v: string) => v.split(',').filter(Boolean);
const NS = list(arg('n', '1000,2000,5000')).map(Number);
const OVERLOAD = Number(arg('overload', '10000'));
const BURNERS = Number(arg('burners', '0'));
const SECONDS = Number(arg('seconds', '20'));
const WARMUP = Number(arg('warmup', '3'));
const CONCURRENCY = Number(arg('concurrency', '200'));
const COLUMNS = new Set(list(arg('columns', 'runtime,plain,bullmq,limit')));
const KEEP_SEC = 5; // finished jobs kept 5 s on every side, so the bench does not fill Redis
const SCHEDULER = fileURLToPath(new URL('./fire-scheduler.ts', import.meta.url));
const PRODUCER = fileURLToPath(new URL('./burst-producer.ts', import.meta.url));
const redis = new Redis(REDIS_URL);
const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function redisNow(): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}
async function sleepUntil(at: number): Promise<void> {
  for (let left = at - (await redisNow()); left > 0; left = at - (await redisNow())) {
    await sleep(left > 50 ? Math.min(left - 20, 1000) : left);
  }
}
/** Redis's CPU (µs, user + system) and its per-command stats so far. */
async function redisCpu(): Promise<{
  us: number;
  hmget: { calls: number; usec: number };
  commands: Map<string, { calls: number; usec: number }>;
}> {
  const cpu = await redis.info('cpu');
  const field = (name: string) => Number(cpu.match(new RegExp(`${name}:(\\S+)`))?.[1] ?? 0);
  const stats = await redis.info('commandstats');
  const commands = new Map<string, { calls: number; usec: number }>();
  for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm))
    commands.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  return {
    us: Math.round((field('used_cpu_user') + field('used_cpu_sys')) * 1e6),
    hmget: commands.get('hmget') ?? { calls: 0, usec: 0 },
    commands,
  };
}
/**
 * Redis's CPU over [from, to), its `HMGET` calls, and this process's CPU (the consumer's: the bench
 * process hosts the Worker and little else while it waits).
 */
async function cpuOver(from: number, to: number) {
  await sleepUntil(from);
  const a = await redisCpu();
  const own = process.cpuUsage();
  await sleepUntil(to);
  const ownUsed = process.cpuUsage(own);
  const b = await redisCpu();
  const commands = new Map<string, { calls: number; usec: number }>();
  for (const [name, c] of b.commands) {
    const before = a.commands.get(name) ?? { calls: 0, usec: 0 };
    if (c.calls > before.calls)
      commands.set(name, { calls: c.calls - before.calls, usec: c.usec - before.usec });
  }
  return {
    commands,
    us: b.us - a.us,
    hmgetCalls: b.hmget.calls - a.hmget.calls,
    hmgetUs: b.hmget.usec - a.hmget.usec,
    consumerUs: ownUsed.user + ownUsed.system,
  };
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
async function dropQueue(q: Queue): Promise<void> {
  await q.obliterate({ force: true }).catch(() => undefined);
  await q.close();
  await deleteKeys(`bull:${q.name}*`);
}
/** Jobs waiting to be taken in a queue (not the delayed ones: those are future occurrences). */
async function depth(q: Queue): Promise<number> {
  const c = await q.getJobCounts('waiting', 'prioritized');
  return (c.waiting ?? 0) + (c.prioritized ?? 0);
}

/**
 * What a consumer saw: `lateness` of the runs whose occurrence is in the window (by fire time), and
 * `started` the handler starts made within the window whatever the fire time (the rate of work done:
 * under overload a late side's last occurrences of the window run after it ends).
 */
type Consumer = { lateness: number[]; started: { n: number }; close: () => Promise<void> };

/** A plain BullMQ Worker recording handler start minus `intended(job)` for jobs due in [from, to). */
function plainWorker(queue: string, intended: (job: Job) => number, from: number, to: number): Consumer {
  const lateness: number[] = [];
  const started = { n: 0 };
  const w = new Worker(
    queue,
    async (job: Job) => {
      const at = intended(job);
      const now = Date.now();
      if (at >= from && at < to) lateness.push(now - at);
      if (now >= from && now < to) started.n++;
    },
    { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, concurrency: CONCURRENCY },
  );
  return { lateness, started, close: () => w.close() };
}

/** bullbeat's worker runtime: the handler is defined on a client-role manager never started. */
async function runtimeWorker(prefix: string, queue: string, from: number, to: number): Promise<Consumer> {
  const lateness: number[] = [];
  const started = { n: 0 };
  const m = new SchedulerManager({
    prefix,
    defaultQueue: queue,
    connection: REDIS_URL,
    logger: silent,
    role: 'client',
  });
  m.schedule(
    (ctx: RunContext) => {
      const now = Date.now();
      if (ctx.fireAt >= from && ctx.fireAt < to) lateness.push(now - ctx.fireAt);
      if (now >= from && now < to) started.n++;
    },
    new IntervalTrigger(3600),
    { id: 'bench-handler', name: 'tick' },
  );
  const handle = await createWorker(m, {
    queues: [queue],
    concurrency: CONCURRENCY,
    logger: silent,
    // BURST_RECORD_LAG: the runtime's recordLagMs (1000 by default; 0 writes the running record at the start)
    tuning: {
      ...(process.env.BURST_RECORD_LAG && { recordLagMs: Number(process.env.BURST_RECORD_LAG) }),
      ...(process.env.BURST_OUTCOME_HOLD && { outcomeHoldMs: Number(process.env.BURST_OUTCOME_HOLD) }),
    },
  });
  await handle.ready();
  return {
    lateness,
    started,
    close: async () => {
      await handle.close();
      await m.close();
    },
  };
}

function spawnChild(script: string, vars: Record<string, string>) {
  // BENCH_CHILD_ARGS: node flags for the child processes (`--cpu-prof --cpu-prof-dir=/tmp/prof` profiles them)
  const flags = (process.env.BENCH_CHILD_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...flags, '--import', 'tsx', script], {
    env: { ...process.env, REDIS_URL, KEEP_SEC: String(KEEP_SEC), ...vars },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
  const result = async <T>() => {
    child.kill('SIGTERM');
    // the report is the last JSON line (a warning logged by the child is JSON too)
    const lines = (await out).split('\n').filter((l) => l.startsWith('{'));
    return JSON.parse(lines[lines.length - 1] ?? '{}') as T;
  };
  return { ready, result };
}

/** N aligned bullbeat schedules (every second, anchor 0) under `prefix`, first due at `startAt`. */
async function createBullbeat(n: number, prefix: string, queue: string, startAt: number): Promise<void> {
  const m = new SchedulerManager({
    prefix,
    defaultQueue: queue,
    connection: REDIS_URL,
    logger: silent,
    role: 'client',
  });
  const saved = [];
  for (let i = 0; i < n; i++) {
    saved.push(
      m.schedule({ name: 'tick' }, new IntervalTrigger(1), {
        id: `s${i}`,
        startAt,
        jobOptions: { removeOnComplete: { age: KEEP_SEC }, removeOnFail: { age: KEEP_SEC } },
      }).saved,
    );
    if (saved.length >= 2000) await Promise.all(saved.splice(0));
  }
  await Promise.all(saved);
  await m.close();
}

interface Row {
  handler: ReturnType<typeof summary>;
  expected: number;
  depth: number;
  redisUs: number;
  burst?: ReturnType<typeof summary>;
  /** bullbeat: when each occurrence's enqueue started, minus its fire time (the scheduler's lateness). */
  enqueue?: ReturnType<typeof summary>;
  coalesced?: number;
  /** Of them (the scheduler's own counts): coalesced in Redis while parked, and by a claim that came a period late. */
  coalescedBy?: { parked: number; behind: number };
  lookups?: { calls: number; usPerCall: number };
  /** bullbeat: the scheduler process's CPU per occurrence it enqueued in the window (µs). */
  schedUs?: number;
  /** Handler starts made within the window, whatever their fire time (`Consumer.started`). */
  started: number;
  /** CPU over the window (µs): Redis's and the consumer's; bullbeat's scheduler's (its per-fire CPU times its fires). */
  cpuTotal: { redis: number; consumer: number; scheduler?: number };
}

/**
 * BURST_COMMANDS=1: the commands Redis ran over the window per run seen, those scripts call included
 * (INFO commandstats), dearest first, to stderr: where a column's Redis time per run goes.
 */
function printCommands(label: string, commands: Map<string, { calls: number; usec: number }>, runs: number) {
  const rows = [...commands].sort((a, b) => b[1].usec - a[1].usec).slice(0, 25);
  console.error(`\n${label}: commands per run (${runs} runs), calls / µs (commandstats)`);
  for (const [name, c] of rows)
    console.error(
      `  ${name.padEnd(22)} ${(c.calls / runs).toFixed(2).padStart(8)} ${(c.usec / runs).toFixed(1).padStart(8)}`,
    );
}

/** A run's row from what it measured: lateness seen, runs expected, depth at the end, CPU over the window. */
function measured(
  lateness: number[],
  started: number,
  n: number,
  depth: number,
  cpu: { us: number; consumerUs: number; commands: Map<string, { calls: number; usec: number }> },
  label: string,
): Pick<Row, 'handler' | 'expected' | 'depth' | 'redisUs' | 'started' | 'cpuTotal'> {
  const handler = summary(lateness);
  const runs = Math.max(1, handler.n);
  if (process.env.BURST_COMMANDS) printCommands(label, cpu.commands, runs);
  return {
    handler,
    expected: n * SECONDS,
    depth,
    redisUs: cpu.us / runs,
    started,
    cpuTotal: { redis: cpu.us, consumer: cpu.consumerUs },
  };
}

async function runBullbeat(n: number, consumer: 'runtime' | 'plain'): Promise<Row> {
  const id = randomUUID().slice(0, 8);
  const prefix = `burst-${id}`;
  const queue = `burst-bb-${id}`;
  const t0 = await redisNow();
  const first = Math.ceil((t0 + 3000) / 1000) * 1000; // once the scheduler process is up
  await createBullbeat(n, prefix, queue, first);
  // creating thousands of schedules can outlast the 3 s head start on a loaded box: the window starts
  // once the scheduler can be up (what came due before it is the warm-up's catch-up)
  const from = Math.max(first, Math.ceil(((await redisNow()) + 2000) / 1000) * 1000) + WARMUP * 1000;
  const to = from + SECONDS * 1000;
  const c =
    consumer === 'runtime'
      ? await runtimeWorker(prefix, queue, from, to)
      : plainWorker(queue, (job) => (job.data as { fireAt: number }).fireAt, from, to);
  // the manager's default claim batch (500): a burst is claimed in several batches, four in flight
  const sched = spawnChild(SCHEDULER, {
    PREFIX: prefix,
    FROM: String(from),
    TO: String(to),
    BATCH: process.env.BURST_BATCH ?? '500',
  });
  await sched.ready;
  const cpu = await cpuOver(from, to);
  const q = new Queue(queue, { connection: { url: REDIS_URL } });
  const left = await depth(q);
  await sleepUntil(to + 1500);
  const out = await sched.result<{
    burstMs: number[];
    lateness: number[];
    claimedAt: number[];
    cpuPerFireUs: number;
    stats: { coalesced: number; coalescedBehind: number; coalescedParked?: number };
  }>();
  if (process.env.BURST_DEBUG) console.error('claims (ms after fire time)', out.claimedAt);

  await c.close();
  const coalesced = Number((await redis.hget(`{${prefix}}:bb:totals`, 'coalesced')) ?? 0);
  await deleteKeys(`{${prefix}}*`);
  await dropQueue(q);
  const row = measured(c.lateness, c.started.n, n, left, cpu, `bullbeat ${consumer} n=${n}`);
  return {
    ...row,
    burst: summary(out.burstMs ?? []),
    enqueue: summary(out.lateness ?? []),
    coalesced,
    coalescedBy: { parked: out.stats.coalescedParked ?? 0, behind: out.stats.coalescedBehind },
    lookups: { calls: cpu.hmgetCalls, usPerCall: cpu.hmgetUs / Math.max(1, cpu.hmgetCalls) },
    schedUs: out.cpuPerFireUs,
    cpuTotal: { ...row.cpuTotal, scheduler: out.cpuPerFireUs * (out.lateness ?? []).length },
  };
}

async function runBullmq(n: number): Promise<Row> {
  const queue = `burst-mq-${randomUUID().slice(0, 8)}`;
  const q = new Queue(queue, { connection: { url: REDIS_URL } });
  for (let i = 0; i < n; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, n - i) }, (_, j) =>
        q.upsertJobScheduler(
          `s${i + j}`,
          { every: 1000 },
          {
            name: 'tick',
            data: {},
            opts: { removeOnComplete: { age: KEEP_SEC }, removeOnFail: { age: KEEP_SEC } },
          },
        ),
      ),
    );
  }
  const t0 = await redisNow();
  const from = Math.ceil((t0 + WARMUP * 1000) / 1000) * 1000;
  const to = from + SECONDS * 1000;
  const intended = (job: Job) => {
    const opts = job.opts as { prevMillis?: number };
    return typeof opts.prevMillis === 'number' ? opts.prevMillis : job.timestamp + (job.opts.delay ?? 0);
  };
  const c = plainWorker(queue, intended, from, to);
  const cpu = await cpuOver(from, to);
  const left = await depth(q);
  await sleepUntil(to + 1500);
  await c.close();
  for (let i = 0; i < n; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, n - i) }, (_, j) => q.removeJobScheduler(`s${i + j}`)),
    );
  }
  await dropQueue(q);
  return measured(c.lateness, c.started.n, n, left, cpu, `bullmq n=${n}`);
}

/** The physical limit: a producer process adds the N jobs at each second itself (no scheduler). */
async function runLimit(n: number, consumer: 'runtime' | 'plain'): Promise<Row> {
  const id = randomUUID().slice(0, 8);
  const prefix = `burst-${id}`;
  const queue = `burst-limit-${id}`;
  const t0 = await redisNow();
  const from = Math.ceil((t0 + 2000 + WARMUP * 1000) / 1000) * 1000;
  const to = from + SECONDS * 1000;
  const c =
    consumer === 'runtime'
      ? await runtimeWorker(prefix, queue, from, to)
      : plainWorker(queue, (job) => (job.data as { fireAt: number }).fireAt, from, to);
  const prod = spawnChild(PRODUCER, {
    QUEUE: queue,
    PREFIX: prefix,
    N: String(n),
    FROM: String(from - WARMUP * 1000),
    TO: String(to),
  });
  await prod.ready;
  const cpu = await cpuOver(from, to);
  const q = new Queue(queue, { connection: { url: REDIS_URL } });
  const left = await depth(q);
  await sleepUntil(to + 1500);
  const out = await prod.result<{ burstMs: number[] }>();
  await c.close();
  await deleteKeys(`{${prefix}}*`);
  await dropQueue(q);
  return {
    ...measured(c.lateness, c.started.n, n, left, cpu, `limit ${consumer} n=${n}`),
    burst: summary(out.burstMs ?? []),
  };
}

const f = (v: number) => (Number.isNaN(v) ? '–' : String(Math.round(v)));
const lat = (r: Row) => `${f(r.handler.p50)} / ${f(r.handler.p99)} / ${f(r.handler.max)}`;
const cell = (r: Row | undefined) =>
  r ? `${lat(r)} (${r.handler.n} / ${r.expected}, depth ${r.depth}, ${f(r.redisUs)} µs)` : '–';

console.log(
  `## Aligned bursts\n\n${new Date().toISOString()}, \`${['node --import tsx bench/burst.ts', ...argv.slice(2)].join(' ')}\`, Redis ${(await redis.info('server')).match(/redis_version:(\S+)/)?.[1]}, ${cpus().length} cores, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(
      ' ',
    )} at the start; N schedules every 1 s all due at the same instant, ${SECONDS} s per run after ${WARMUP} s warm-up; consumers: concurrency ${CONCURRENCY}, no-op handler.\n`,
);
console.log(
  'Each cell: handler start − fire time p50 / p99 / max (ms) (runs seen / expected, queue depth at the end, Redis CPU per run).\n',
);
const columns: [string, string][] = [
  ['runtime', 'bullbeat + its worker runtime'],
  ['plain', 'bullbeat scheduler + plain Worker'],
  ['bullmq', 'BullMQ job schedulers + plain Worker'],
  ['limit', 'physical limit: addBulk + plain Worker'],
  ['limit-runtime', 'physical limit: addBulk + worker runtime'],
];
const shown = columns.filter(([k]) => COLUMNS.has(k) || (k === 'limit-runtime' && COLUMNS.has('limit')));
console.log(
  `| N aligned | ${shown.map(([, t]) => t).join(' | ')} | bullbeat p99 / BullMQ p99 (plain; runtime) |`,
);
console.log(`|---|${shown.map(() => '---|').join('')}---|`);
const extra: string[] = [];
for (const n of NS) {
  const r: Record<string, Row> = {};
  if (COLUMNS.has('runtime')) r.runtime = await runBullbeat(n, 'runtime');
  if (COLUMNS.has('plain')) r.plain = await runBullbeat(n, 'plain');
  if (COLUMNS.has('bullmq')) r.bullmq = await runBullmq(n);
  if (COLUMNS.has('limit')) {
    r.limit = await runLimit(n, 'plain');
    r['limit-runtime'] = await runLimit(n, 'runtime');
  }
  const ratio = (a?: Row) =>
    a && r.bullmq ? (a.handler.p99 / Math.max(1, r.bullmq.handler.p99)).toFixed(2) : '–';
  console.log(
    `| ${n} | ${shown.map(([k]) => cell(r[k])).join(' | ')} | ${ratio(r.plain)}; ${ratio(r.runtime)} |`,
  );
  for (const [k, t] of shown) {
    const row = r[k];
    if (!row?.burst) continue;
    extra.push(
      `| ${n} | ${t} | ${row.enqueue ? `${f(row.enqueue.p50)} / ${f(row.enqueue.p99)}` : '–'} | ${f(row.burst.p50)} / ${f(row.burst.p99)} / ${f(row.burst.max)} | ${row.coalesced ?? '–'} | ${row.lookups ? `${row.lookups.calls} × ${row.lookups.usPerCall.toFixed(2)} µs` : '–'} | ${row.schedUs ? f(row.schedUs) : '–'} |`,
    );
  }
}
/** K busy processes (a loaded box) until the returned function stops them. */
function burn(k: number): () => void {
  const kids = Array.from({ length: k }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  return () => {
    for (const kid of kids) kid.kill('SIGKILL');
  };
}

async function overloadRows(burners: number): Promise<void> {
  // bullbeat with each consumer the columns name (its runtime, a plain Worker), then BullMQ
  const consumers = (['runtime', 'plain'] as const).filter((c) => COLUMNS.has(c));
  if (consumers.length === 0) consumers.push('plain');
  const stop = burn(burners);
  const bb: { consumer: 'runtime' | 'plain'; row: Row }[] = [];
  let mq: Row;
  try {
    for (const consumer of consumers) bb.push({ consumer, row: await runBullbeat(OVERLOAD, consumer) });
    // BENCH_AFTER_BULLBEAT: a command run between the two sides (e.g. to read Redis's SLOWLOG of bullbeat's side)
    if (process.env.BENCH_AFTER_BULLBEAT) execSync(process.env.BENCH_AFTER_BULLBEAT, { stdio: 'inherit' });
    mq = await runBullmq(OVERLOAD);
  } finally {
    stop();
  }
  const perSec = (row: Row) => row.handler.n / SECONDS;
  const startsPerSec = (row: Row) => row.started / SECONDS;
  console.log(
    `\nOverload: ${OVERLOAD} schedules every second, aligned, concurrency ${CONCURRENCY}${burners > 0 ? `, ${burners} CPU burners beside it` : ''}.\n`,
  );
  // runs/s: the window's occurrences that ran by 1.5 s after it (late ones are not counted); starts/s:
  // every handler start within the window, whatever its occurrence (the work rate). The CPU one run
  // costs, process by process, over the window per start made in it: on a box whose cores are all busy,
  // runs/s is about the cores over the sum (BullMQ's job schedulers run inside Redis, in the Worker's
  // moveToFinished)
  const per = (us: number, row: Row) => f(us / Math.max(1, row.started));
  const cost = (row: Row) => {
    const { redis, consumer, scheduler = 0 } = row.cpuTotal;
    return `${per(redis, row)} + ${per(consumer, row)} + ${per(scheduler, row)} = ${per(redis + consumer + scheduler, row)}`;
  };
  console.log(
    '| | p50 / p99 / max (ms) | runs seen / expected | runs/s | runs/s vs BullMQ | handler starts/s in the window | vs BullMQ | coalesced (of them: in Redis while parked; by a claim a period late) | queue depth at the end | CPU per start (µs): Redis + consumer + scheduler = all |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  const ratio = (a: number, b: number) => `${(a / Math.max(1, b)).toFixed(2)}x`;
  for (const { consumer, row } of bb) {
    const label =
      consumer === 'runtime' ? 'bullbeat + its worker runtime' : 'bullbeat scheduler + plain Worker';
    console.log(
      `| ${label} | ${lat(row)} | ${row.handler.n} / ${row.expected} | ${perSec(row).toFixed(0)} | ${ratio(perSec(row), perSec(mq))} | ${startsPerSec(row).toFixed(0)} | ${ratio(startsPerSec(row), startsPerSec(mq))} | ${row.coalesced} (${row.coalescedBy?.parked ?? '–'}; ${row.coalescedBy?.behind ?? '–'}) | ${row.depth} | ${cost(row)} |`,
    );
    extra.push(
      `| ${OVERLOAD} (overload${burners > 0 ? `, ${burners} burners` : ''}) | ${label} | ${f(row.enqueue!.p50)} / ${f(row.enqueue!.p99)} | ${f(row.burst!.p50)} / ${f(row.burst!.p99)} / ${f(row.burst!.max)} | ${row.coalesced} | ${row.lookups!.calls} × ${row.lookups!.usPerCall.toFixed(2)} µs | ${row.schedUs ? f(row.schedUs) : '–'} |`,
    );
  }
  console.log(
    `| BullMQ job schedulers + plain Worker | ${lat(mq)} | ${mq.handler.n} / ${mq.expected} | ${perSec(mq).toFixed(0)} | 1.00x | ${startsPerSec(mq).toFixed(0)} | 1.00x | – | ${mq.depth} | ${cost(mq)} |`,
  );
}
if (OVERLOAD > 0) {
  await overloadRows(0);
  if (BURNERS > 0) await overloadRows(BURNERS);
}
if (extra.length > 0) {
  console.log(
    "\nBurst enqueue: when each occurrence's `addBulk` started, minus its fire time (bullbeat's own lateness); fire instant → the end of the last `addBulk` carrying one of its jobs, per instant of the window (ms, p50 / p99 / max); occurrences coalesced by backpressure over the whole run; backpressure look-ups in the window (Redis `HMGET` calls × Redis time per call); the scheduler process's CPU per occurrence it enqueued in the window (µs).\n",
  );
  console.log(
    '| N | column | enqueue start − fire time p50 / p99 (ms) | fire → last job in the queue p50 / p99 / max (ms) | coalesced | look-ups | scheduler CPU per enqueue (µs) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const l of extra) console.log(l);
}
console.log(
  `\nLoad average at the end: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}.`,
);
await redis.quit();
process.exit(0);
