// bench:occurrence-cost: what one occurrence costs in CPU, per process, at a load every side keeps up
// with, and what a coalesced one costs. N interval schedules every 1 s (not aligned to one instant: a
// steady load), measured over a 10 s window after a warm-up:
//   - bullbeat, a plain BullMQ Worker consuming: every occurrence runs;
//   - bullbeat, nothing consuming: every occurrence after a schedule's first is coalesced (backpressure);
//   - BullMQ job schedulers (`upsertJobScheduler`), a plain Worker consuming.
// Per occurrence: the scheduler process's CPU (/proc), Redis's (`INFO cpu`), the consumer's (this
// process), and Redis's commands (`INFO commandstats`, calls and µs per occurrence, Lua's inner ones
// included). Under overload (bench:burst) the share of coalesced occurrences decides how much CPU is
// left for runs.
//
//   BENCH_CHILD_ARGS: node flags for the scheduler child process (`--cpu-prof --cpu-prof-dir=DIR`).
//   npm run build && REDIS_URL=redis://127.0.0.1:6391 npm run bench:occurrence-cost [-- --n 3000 --modes run,none,bullmq]
// Use a private redis-server (`redis-server --port 6391 --save '' --appendonly no`): its CPU and command
// counts are the whole server's. It runs the built code (dist/).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { SchedulerManager } from '../dist/src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../dist/src/triggers/interval-trigger.js';

const { values } = parseArgs({
  options: { n: { type: 'string', default: '3000' }, modes: { type: 'string', default: 'run,none,bullmq' } },
});
const N = Number(values.n);
const WINDOW_S = 10;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = new Redis(REDIS_URL);
// BENCH_CHILD_ARGS: node flags for the scheduler child (`--cpu-prof --cpu-prof-dir=DIR` profiles it)
const CHILD_FLAGS = (process.env.BENCH_CHILD_ARGS ?? '').split(' ').filter(Boolean);
const KEEP = { removeOnComplete: { age: 5 }, removeOnFail: { age: 5 } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function redisNow(): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}
/** A process's CPU so far (µs), from /proc: the scheduler child's. */
function cpuOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}
async function redisCpuUs(): Promise<number> {
  const info = await redis.info('cpu');
  const field = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}
async function commandStats(): Promise<Map<string, { calls: number; usec: number }>> {
  const out = new Map<string, { calls: number; usec: number }>();
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
    if (m) out.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  }
  return out;
}

interface Measured {
  mode: string;
  scheduler: number;
  redis: number;
  consumer: number;
  commands: { name: string; calls: number; usec: number }[];
  counted: string;
}

async function measure(mode: 'run' | 'none' | 'bullmq'): Promise<Measured> {
  const tag = `${mode}-${process.pid}-${Date.now()}`;
  const prefix = `oc-${tag}`;
  const queue = `oc-q-${tag}`;
  const startAt = Math.ceil(((await redisNow()) + 4000) / 1000) * 1000;
  let child: ChildProcess | undefined;
  if (mode === 'bullmq') {
    const q = new Queue(queue, { connection: { url: REDIS_URL } });
    for (let i = 0; i < N; i += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, N - i) }, (_, j) =>
          q.upsertJobScheduler(`s${i + j}`, { every: 1000 }, { name: 'tick', data: {}, opts: KEEP }),
        ),
      );
    }
    await q.close();
  } else {
    const m = new SchedulerManager({ prefix, defaultQueue: queue, connection: REDIS_URL, role: 'client' });
    const saved: Promise<unknown>[] = [];
    for (let i = 0; i < N; i++) {
      saved.push(
        m.schedule({ name: 'tick' }, new IntervalTrigger(1), { id: `s${i}`, startAt, jobOptions: KEEP })
          .saved,
      );
    }
    await Promise.all(saved);
    await m.close();
    child = spawn(
      process.execPath,
      [...CHILD_FLAGS, '--import', 'tsx', fileURLToPath(new URL('./fire-scheduler.ts', import.meta.url))],
      {
        env: { ...process.env, PREFIX: prefix, REDIS_URL, BATCH: '500' },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
  }
  const worker =
    mode === 'none'
      ? undefined
      : new Worker(queue, async () => undefined, { connection: { url: REDIS_URL }, concurrency: 200 });
  await sleep(9000); // the schedules' first occurrences, the scheduler's start, the outcome follower's discovery
  const before = {
    s: child ? cpuOf(child.pid!) : 0,
    r: await redisCpuUs(),
    me: process.cpuUsage(),
    cs: await commandStats(),
  };
  const totals0 = await redis.hgetall(`{${prefix}}:bb:totals`);
  await sleep(WINDOW_S * 1000);
  const after = {
    s: child ? cpuOf(child.pid!) : 0,
    r: await redisCpuUs(),
    me: process.cpuUsage(before.me),
    cs: await commandStats(),
  };
  const totals1 = await redis.hgetall(`{${prefix}}:bb:totals`);
  const occ = N * WINDOW_S;
  const commands = [...after.cs]
    .map(([name, v]) => {
      const o = before.cs.get(name) ?? { calls: 0, usec: 0 };
      return { name, calls: (v.calls - o.calls) / occ, usec: (v.usec - o.usec) / occ };
    })
    .filter((c) => c.usec >= 0.05)
    .sort((a, b) => b.usec - a.usec);
  const delta = (k: string) => Number(totals1[k] ?? 0) - Number(totals0[k] ?? 0);
  const counted =
    mode === 'bullmq' ? '–' : `runs ${delta('runs')}, coalesced ${delta('coalesced')} of ${occ}`;
  if (child) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  await worker?.close();
  const q = new Queue(queue, { connection: { url: REDIS_URL } });
  await q.obliterate({ force: true }).catch(() => undefined);
  await q.close();
  for (const pattern of [`{${prefix}}*`]) {
    const keys = await redis.keys(pattern);
    for (let i = 0; i < keys.length; i += 1000) await redis.unlink(...keys.slice(i, i + 1000));
  }
  return {
    mode,
    scheduler: (after.s - before.s) / occ,
    redis: (after.r - before.r) / occ,
    consumer: (after.me.user + after.me.system) / occ,
    commands,
    counted,
  };
}

const LABEL = {
  run: 'bullbeat scheduler + plain Worker (every occurrence runs)',
  none: 'bullbeat scheduler, nothing consuming (every occurrence coalesced)',
  bullmq: 'BullMQ job schedulers + plain Worker',
};
const rows: Measured[] = [];
for (const mode of values.modes.split(',') as (keyof typeof LABEL)[]) rows.push(await measure(mode));
console.log(
  `\n${new Date().toISOString()}, \`node --import tsx bench/occurrence-cost.ts --n ${N} --modes ${values.modes}\`: ${N} schedules every 1 s, ${WINDOW_S} s window. CPU per occurrence (µs).\n`,
);
console.log('| set-up | scheduler | Redis | consumer | all | occurrences in the window |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${LABEL[r.mode as keyof typeof LABEL]} | ${r.scheduler.toFixed(1)} | ${r.redis.toFixed(1)} | ${r.consumer.toFixed(1)} | ${(r.scheduler + r.redis + r.consumer).toFixed(1)} | ${r.counted} |`,
  );
}
for (const r of rows) {
  console.log(
    `\nRedis commands per occurrence, ${LABEL[r.mode as keyof typeof LABEL]} (calls, µs; \`evalsha\` µs include its inner calls):`,
  );
  console.log(
    r.commands
      .slice(0, 8)
      .map((c) => `${c.name} ${c.calls.toFixed(2)} × ${(c.usec / c.calls).toFixed(1)}`)
      .join(' · '),
  );
}
await redis.quit();
