// The run path's cost in Redis: bullbeat's worker runtime (createWorker) against a plain BullMQ
// Worker, on the same jobs (occurrence payloads, a no-op handler), side by side in one run. Each row
// gets a private redis-server (so that nothing else on the box shows in its counters); per run it
// prints the commands the clients sent (counted in this process, pipelined ones included), the script
// calls among them and their time in Redis (INFO commandstats deltas of evalsha/eval, which include the
// commands they call), and Redis's own CPU (INFO cpu deltas), with the ratio to the plain Worker; and the
// consumer process's own CPU (process.cpuUsage over the drain: the worker runs in this process).
//
//   npm run bench:run                           (node --import tsx bench/run.ts)
//   node --import tsx bench/run.ts --jobs 2000 --concurrency 50 --schedules 500 --rounds 3
//   node --import tsx bench/run.ts --callgrind --jobs 3000 --rounds 1
//     each private redis-server runs under valgrind's callgrind, zeroed when the drain starts and dumped
//     when it ends: a column of Redis's instructions per run, the same from run to run whatever else
//     the box is doing (CPU time on this shared 2-core box moves by ±20 %). Redis runs ~50x slower under
//     it, so use fewer jobs; the time columns mean nothing then.
//     --no-records: the jobs only, without the `enqueued` record the scheduler writes for each (by
//     default each occurrence has it before the drain, as in production)
//     --cpu-prof DIR: this process's CPU profile over each drain (the consumer alone), DIR/<row>.cpuprofile
//     --profile DIR keeps each row's drain dump as DIR/<row>.callgrind (callgrind_annotate reads it:
//     where Redis's instructions go, by function); --sides plain,lease,allowAll picks the rows.
//
// Rows: the plain Worker; the runtime with the default overlap rule (one run at a time: a lease per
// run); the runtime with `overlap: 'allowAll'` (no lease). Prints Markdown.
// It runs the built code (dist/, what users run; tsx's transform of src/ adds a cost of its own to
// every function it creates): the npm script builds first, `npm run build` does it by hand.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { type Command, Redis } from 'ioredis';
import pino from 'pino';
import { createWorker } from '../dist/src/queue/create-worker.js';
import type { WorkerScheduler } from '../dist/src/queue/worker-scheduler.js';
import { occurrenceJobId } from '../dist/src/store/forms/job-payload.js';
import { resolveOverlap } from '../dist/src/store/forms/overlap-policy.js';
import { keys } from '../dist/src/store/keys/index.js';
import { RunHistory } from '../dist/src/store/reads/index.js';
import { startProfile, stopProfile } from './cpu-profile.js';

const argv = process.argv;
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const JOBS = Number(arg('jobs', '3000'));
const CONCURRENCY = Number(arg('concurrency', '50'));
const SCHEDULES = Number(arg('schedules', '1000'));
const ROUNDS = Number(arg('rounds', '3'));
const LABEL = arg('label', 'bullbeat runtime');
const CALLGRIND = argv.includes('--callgrind');
const PROFILE = arg('profile', '');
// --cpu-prof DIR: this process's CPU profile over each row's drain (the consumer's work only), as
// DIR/<row>.cpuprofile (Chrome DevTools, or any .cpuprofile reader)
const CPU_PROFILE = arg('cpu-prof', '');
// --no-records: no `enqueued` record before the drain (jobs added by hand, not by the scheduler)
const RECORDS = !argv.includes('--no-records');
const silent = pino({ level: 'silent' });

interface Cost {
  /** Commands sent by the clients (BullMQ's and bullbeat's). */
  sent: number;
  /** Of which script calls (evalsha, eval). */
  scripts: number;
  /** Time in Redis of those script calls (commandstats). */
  scriptUsec: number;
  /** Redis's CPU (INFO cpu). */
  cpuUs: number;
  byCommand: Map<string, number>;
  skipped: number;
  /** The consumer's own CPU (this process: user + system, µs) over the drain. */
  nodeUs: number;
  /** Redis's instructions over the drain (`--callgrind`), else 0. */
  instructions: number;
  /** Every command Redis ran over the drain, the ones scripts call included (commandstats). */
  inRedis?: Map<string, number>;
}

// Count every command the clients of this process send (ioredis: BullMQ's connections too).
let sent = new Map<string, number>();
const originalSend = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, command: Command, ...rest: unknown[]) {
  const name = command.name.toLowerCase();
  sent.set(name, (sent.get(name) ?? 0) + 1);
  return (originalSend as (...a: unknown[]) => unknown).call(this, command, ...rest);
} as typeof originalSend;

/** A private redis-server on a free port. */
async function startRedis(): Promise<{ port: number; child: ChildProcess }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = ['redis-server', '--port', String(port), '--save', '', '--appendonly', 'no'];
  const command = CALLGRIND
    ? ['valgrind', '--tool=callgrind', `--callgrind-out-file=${callgrindFile(port)}`, ...server]
    : server;
  const child = spawn(command[0]!, command.slice(1), { stdio: 'ignore' });
  const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
  probe.on('error', () => {});
  for (let i = 0; i < (CALLGRIND ? 400 : 100); i++) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  await probe.quit();
  return { port, child };
}

function callgrindFile(port: number): string {
  return join(tmpdir(), `bench-run-callgrind.${port}`);
}

/** Callgrind of a server: `zero` its counters now, or `dump` them and read the instructions since. */
function callgrind(child: ChildProcess, port: number, what: 'zero' | 'dump', side = ''): number {
  if (!CALLGRIND) return 0;
  execFileSync('callgrind_control', [what === 'zero' ? '-z' : '-d', String(child.pid)], { stdio: 'ignore' });
  if (what === 'zero') return 0;
  // dumps are numbered from 1: the newest is the drain's
  const dumps = readdirSync(tmpdir())
    .filter((f) => f.startsWith(`bench-run-callgrind.${port}.`))
    .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
  const text = readFileSync(join(tmpdir(), dumps.at(-1)!), 'utf8');
  if (PROFILE) copyFileSync(join(tmpdir(), dumps.at(-1)!), join(PROFILE, `${side}.callgrind`));
  const summary = text.match(/^(?:summary|totals): (\d+)/m);
  if (!summary) throw new Error('callgrind: no totals in its dump');
  return Number(summary[1]);
}

async function stats(
  redis: Redis,
): Promise<{ cmd: Map<string, { calls: number; usec: number }>; cpuUs: number }> {
  const info = await redis.info('commandstats');
  const cmd = new Map<string, { calls: number; usec: number }>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    cmd.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  }
  const cpu = await redis.info('cpu');
  const field = (name: string) => Number(cpu.match(new RegExp(`${name}:(\\S+)`))?.[1] ?? 0);
  return { cmd, cpuUs: Math.round((field('used_cpu_user') + field('used_cpu_sys')) * 1e6) };
}

const IGNORED = new Set(['info', 'config', 'client', 'hello', 'ping', 'select', 'script', 'function']);

function delta(
  a: Awaited<ReturnType<typeof stats>>,
  b: Awaited<ReturnType<typeof stats>>,
  counted: Map<string, number>,
): Omit<Cost, 'skipped' | 'nodeUs' | 'instructions'> {
  const usecOf = (name: string) => (b.cmd.get(name)?.usec ?? 0) - (a.cmd.get(name)?.usec ?? 0);
  const byCommand = new Map([...counted].filter(([n]) => !IGNORED.has(n)));
  let total = 0;
  for (const n of byCommand.values()) total += n;
  return {
    sent: total,
    scripts: (byCommand.get('evalsha') ?? 0) + (byCommand.get('eval') ?? 0),
    scriptUsec: usecOf('evalsha') + usecOf('eval'),
    cpuUs: b.cpuUs - a.cpuUs,
    byCommand,
  };
}

type Side = 'plain' | 'lease' | 'allowAll';

/** Add JOBS occurrence jobs, drain them with one side's consumer, return what Redis spent. */
async function measure(side: Side): Promise<Cost> {
  const { port, child } = await startRedis();
  const connection = { port, maxRetriesPerRequest: null };
  const redis = new Redis(connection);
  const prefix = `bench-${randomUUID().slice(0, 6)}`;
  const queueName = `run-${randomUUID().slice(0, 6)}`;
  const queue = new Queue(queueName, { connection });
  try {
    const run = resolveOverlap({ overlap: side === 'allowAll' ? 'allowAll' : 'skip' });
    const now = Date.now();
    const jobs = Array.from({ length: JOBS }, (_, i) => {
      const scheduleId = `s${i % SCHEDULES}`;
      const fireAt = now + Math.floor(i / SCHEDULES) * 1000;
      return {
        name: 'tick',
        data: { scheduleId, fireAt, kind: 'scheduled', args: [], prefix, run },
        opts: { jobId: occurrenceJobId(scheduleId, fireAt), removeOnComplete: true, removeOnFail: true },
      };
    });
    for (let i = 0; i < jobs.length; i += 500) await queue.addBulk(jobs.slice(i, i + 500));
    // Each occurrence's `enqueued` record, as the scheduler's completion writes it (complete-n) before
    // any worker takes the job: what the run path finds in production. Outside the measured window.
    if (RECORDS) {
      const history = new RunHistory(redis, keys(prefix));
      for (let i = 0; i < jobs.length; i += 500) {
        await Promise.all(
          jobs.slice(i, i + 500).map((j) =>
            history.merge(j.data.scheduleId, j.data.fireAt, false, {
              outcome: 'enqueued',
              kind: 'scheduled',
              queue: queueName,
              jobId: j.opts.jobId,
              enqueuedAt: now,
              replica: 'bench',
            }),
          ),
        );
      }
    }

    let done = 0;
    let skipped = 0;
    let finish: () => void = () => {};
    const drained = new Promise<void>((r) => {
      finish = r;
    });
    const onDone = (_job: unknown, result: unknown) => {
      if ((result as { skipped?: unknown } | undefined)?.skipped) skipped++;
      if (++done === JOBS) finish();
    };
    let close: () => Promise<void>;
    const before = await stats(redis);
    callgrind(child, port, 'zero');
    const profiling = CPU_PROFILE ? startProfile() : undefined;
    const cpu0 = process.cpuUsage();
    sent = new Map();
    if (side === 'plain') {
      const worker = new Worker(queueName, async () => undefined, { connection, concurrency: CONCURRENCY });
      worker.on('completed', onDone);
      worker.on('failed', () => onDone(undefined, undefined));
      close = () => worker.close();
    } else {
      const scheduler: WorkerScheduler = {
        prefix,
        connectionOptions: () => connection,
        handlerFor: (name) =>
          name === 'tick' ? { fn: () => undefined, job: { id: name, name } } : undefined,
        handlerNames: () => ['tick'],
      };
      const handle = await createWorker(scheduler, {
        queues: [queueName],
        concurrency: CONCURRENCY,
        logger: silent,
      });
      for (const w of handle.workers) {
        w.on('completed', onDone);
        w.on('failed', () => onDone(undefined, undefined));
      }
      close = () => handle.close({ graceMs: 1000 });
    }
    await drained;
    const cpu1 = process.cpuUsage(cpu0);
    if (profiling) await stopProfile(await profiling, join(CPU_PROFILE, `${side}.cpuprofile`));
    const counted = sent;
    sent = new Map();
    const instructions = callgrind(child, port, 'dump', side);
    const after = await stats(redis);
    await close();
    const inRedis = new Map<string, number>();
    for (const [name, { calls }] of after.cmd) {
      const n = calls - (before.cmd.get(name)?.calls ?? 0);
      if (n > 0 && !IGNORED.has(name.split('|')[0]!)) inRedis.set(name, n);
    }
    return {
      ...delta(before, after, counted),
      skipped,
      nodeUs: cpu1.user + cpu1.system,
      instructions,
      inRedis,
    };
  } finally {
    await queue.close();
    await redis.quit();
    child.kill('SIGKILL');
    if (CALLGRIND) {
      for (const f of readdirSync(tmpdir()).filter((f) => f.startsWith(`bench-run-callgrind.${port}`)))
        rmSync(join(tmpdir(), f), { force: true });
    }
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main() {
  const sides = arg('sides', 'plain,lease,allowAll').split(',') as Side[];
  const results = new Map<Side, Cost[]>(sides.map((s) => [s, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of sides) results.get(side)!.push(await measure(side));
  }
  const per = (side: Side, f: (c: Cost) => number) => median(results.get(side)!.map((c) => f(c) / JOBS));
  const base = {
    sent: per('plain', (c) => c.sent),
    scripts: per('plain', (c) => c.scripts),
    scriptUsec: per('plain', (c) => c.scriptUsec),
    cpu: per('plain', (c) => c.cpuUs),
    node: per('plain', (c) => c.nodeUs),
    instructions: per('plain', (c) => c.instructions),
  };
  console.log(
    `\n${JOBS} jobs, concurrency ${CONCURRENCY}, ${SCHEDULES} schedules, median of ${ROUNDS} rounds, a private redis-server per row\n`,
  );
  console.log(
    '| consumer | commands sent / run | ratio | script calls / run | script µs / run (commandstats) | Redis CPU µs / run (INFO cpu) | ratio | extra CPU µs / run | consumer process CPU µs / run | ratio | skipped |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const rows: string[] = [];
  const names: Record<Side, string> = {
    plain: 'plain BullMQ Worker',
    lease: `${LABEL}, one run at a time (lease)`,
    allowAll: `${LABEL}, maxInstances 0 / allowAll`,
  };
  for (const side of sides) {
    const sentPer = per(side, (c) => c.sent);
    const cpu = per(side, (c) => c.cpuUs);
    const skipped = median(results.get(side)!.map((c) => c.skipped));
    const node = per(side, (c) => c.nodeUs);
    const instructions = per(side, (c) => c.instructions);
    if (CALLGRIND) {
      rows.push(
        `| ${names[side]} | ${Math.round(instructions).toLocaleString('en')} | ${(instructions / base.instructions).toFixed(2)}x | ${Math.round(instructions - base.instructions).toLocaleString('en')} |`,
      );
    }
    console.log(
      `| ${names[side]} | ${sentPer.toFixed(2)} | ${(sentPer / base.sent).toFixed(2)}x | ${per(side, (c) => c.scripts).toFixed(2)} | ${per(side, (c) => c.scriptUsec).toFixed(1)} | ${cpu.toFixed(1)} | ${(cpu / base.cpu).toFixed(2)}x | ${(cpu - base.cpu).toFixed(1)} | ${node.toFixed(0)} | ${(node / base.node).toFixed(2)}x | ${skipped} |`,
    );
  }
  if (CALLGRIND) {
    console.log('\nRedis instructions per run (callgrind, over the drain):\n');
    console.log('| consumer | instructions / run | ratio | extra over the plain Worker |');
    console.log('|---|---|---|---|');
    for (const row of rows) console.log(row);
  }
  console.log('\nCommands Redis ran per run, those scripts call included (INFO commandstats, last round):\n');
  for (const side of sides) {
    const last = results.get(side)!.at(-1)!;
    const all = [...(last.inRedis ?? new Map()).entries()].sort((a, b) => b[1] - a[1]);
    const total = all.reduce((a, [, n]) => a + n, 0);
    console.log(
      `- ${names[side]}: ${(total / JOBS).toFixed(1)} in all: ${all.map(([n, c]) => `${n} ${(c / JOBS).toFixed(2)}`).join(', ')}`,
    );
  }
  console.log('\nCommands sent per run (last round):\n');
  for (const side of sides) {
    const last = results.get(side)!.at(-1)!;
    const top = [...last.byCommand.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([n, c]) => `${n} ${(c / JOBS).toFixed(2)}`);
    console.log(`- ${names[side]}: ${top.join(', ')}`);
  }
}

await main();
process.exit(0);
