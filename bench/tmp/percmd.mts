// usage: (in a built checkout) node --import tsx ../shared/perf/percmd.mts --port 6560 --mode runtime|plain|bullmq [--n 1000] [--seconds 3] [--warmup 3] [--clean] [--callgrind] [--commit-ahead]
// Per occurrence run, every top-level Redis command / script call (SLOWLOG at threshold 0, drained
// atomically every 200 ms) and every command Redis ran incl. those called from Lua (INFO commandstats
// deltas), for N schedules every 1 s all due at the same instant; starts its own redis-server on --port
// (under callgrind with --callgrind: total instructions per run). Runs the built code of BB_ROOT (default cwd).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WORK = process.env.PERF_TMP ?? join(tmpdir(), 'bullbeat-perf');
mkdirSync(WORK, { recursive: true });
const ROOT = process.env.BB_ROOT ?? process.cwd();
const req = createRequire(join(ROOT, 'package.json'));
const { Queue, Worker } = await import(req.resolve('bullmq'));
const { Redis } = await import(req.resolve('ioredis'));
const pino = (await import(req.resolve('pino'))).default;
const { createWorker } = await import(join(ROOT, 'dist/src/queue/create-worker.js'));
const { SchedulerManager } = await import(join(ROOT, 'dist/src/scheduler/manager/scheduler-manager.js'));
const { IntervalTrigger } = await import(join(ROOT, 'dist/src/triggers/interval-trigger.js'));
const { storeScripts } = await import(join(ROOT, 'dist/src/store/scripts/scripts.js'));

const argv = process.argv;
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const PORT = Number(arg('port', '6560'));
const MODE = arg('mode', 'runtime');
const N = Number(arg('n', '1000'));
const SECONDS = Number(arg('seconds', '3'));
const WARMUP = Number(arg('warmup', '3'));
const CONCURRENCY = Number(arg('concurrency', '200'));
const CALLGRIND = argv.includes('--callgrind');
const KEEP_SEC = 5;
const URL = `redis://127.0.0.1:${PORT}`;
const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// sha -> script name: bullbeat's store scripts and BullMQ's
const names = new Map<string, string>();
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
for (const s of storeScripts()) names.set(sha1(s.lua), `bb:${s.name}`);
const bmqScripts = req(join(ROOT, 'node_modules/bullmq/dist/cjs/scripts/index.js'));
for (const v of Object.values(bmqScripts) as { name: string; content: string; keys: number }[])
  names.set(sha1(v.content), `bullmq:${v.name}-${v.keys}`);

// the server
const cgFile = `${WORK}/cg.${PORT}`;
const server = ['redis-server', '--port', String(PORT), '--save', '', '--appendonly', 'no'];
const cmd = CALLGRIND
  ? ['valgrind', '--tool=callgrind', `--callgrind-out-file=${cgFile}`, ...server]
  : server;
for (const f of readdirSync(WORK).filter((f) => f.startsWith(`cg.${PORT}`)))
  execFileSync('rm', ['-f', join(WORK, f)]);
const child: ChildProcess = spawn(cmd[0]!, cmd.slice(1), { stdio: 'ignore' });
const redis = new Redis({ port: PORT, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
redis.on('error', () => {});
for (let i = 0; i < 400; i++) {
  try {
    await redis.connect();
    await redis.ping();
    break;
  } catch {
    await sleep(50);
  }
}
async function redisNow(): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}
async function sleepUntil(at: number) {
  for (let left = at - (await redisNow()); left > 0; left = at - (await redisNow()))
    await sleep(left > 50 ? Math.min(left - 20, 1000) : left);
}
const lateness: number[] = [];
let from = 0,
  to = 0;
const inWin = (t: number) => t >= from && t < to;
let closeAll: () => Promise<void> = async () => {};
let sched: ChildProcess | undefined;

const t0 = await redisNow();
if (MODE === 'bullmq') {
  const q = new Queue('q', { connection: { port: PORT } });
  for (let i = 0; i < N; i += 500)
    await Promise.all(
      Array.from({ length: Math.min(500, N - i) }, (_, j) =>
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
  from = Math.ceil(((await redisNow()) + WARMUP * 1000) / 1000) * 1000;
  to = from + SECONDS * 1000;
  const w = new Worker(
    'q',
    async (job: any) => {
      const at =
        typeof job.opts.prevMillis === 'number' ? job.opts.prevMillis : job.timestamp + (job.opts.delay ?? 0);
      if (inWin(at)) lateness.push(Date.now() - at);
    },
    { connection: { port: PORT, maxRetriesPerRequest: null }, concurrency: CONCURRENCY },
  );
  closeAll = async () => {
    await w.close();
    await q.close();
  };
} else {
  const prefix = 'pc';
  const first = Math.ceil((t0 + 3000) / 1000) * 1000;
  const m = new SchedulerManager({
    prefix,
    defaultQueue: 'q',
    connection: URL,
    logger: silent,
    role: 'client',
  });
  const saved = [];
  for (let i = 0; i < N; i++) {
    saved.push(
      m.schedule({ name: 'tick' }, new IntervalTrigger(1), {
        id: `s${i}`,
        startAt: first,
        jobOptions: { removeOnComplete: { age: KEEP_SEC }, removeOnFail: { age: KEEP_SEC } },
      }).saved,
    );
    if (saved.length >= 2000) await Promise.all(saved.splice(0));
  }
  await Promise.all(saved);
  await m.close();
  from = Math.max(first, Math.ceil(((await redisNow()) + 2000) / 1000) * 1000) + WARMUP * 1000;
  to = from + SECONDS * 1000;
  if (MODE === 'runtime') {
    const h = new SchedulerManager({
      prefix,
      defaultQueue: 'q',
      connection: URL,
      logger: silent,
      role: 'client',
    });
    h.schedule(
      (ctx: any) => {
        if (inWin(ctx.fireAt)) lateness.push(Date.now() - ctx.fireAt);
      },
      new IntervalTrigger(3600),
      { id: 'bench-handler', name: 'tick' },
    );
    const handle = await createWorker(h, { queues: ['q'], concurrency: CONCURRENCY, logger: silent });
    await handle.ready();
    closeAll = async () => {
      await handle.close();
      await h.close();
    };
  } else {
    const w = new Worker(
      'q',
      async (job: any) => {
        const at = job.data.fireAt;
        if (inWin(at)) lateness.push(Date.now() - at);
      },
      { connection: { port: PORT, maxRetriesPerRequest: null }, concurrency: CONCURRENCY },
    );
    closeAll = async () => {
      await w.close();
    };
  }
  sched = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/fire-scheduler.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      REDIS_URL: URL,
      KEEP_SEC: String(KEEP_SEC),
      PREFIX: prefix,
      FROM: String(from),
      TO: String(to),
      BATCH: process.env.BATCH ?? '500',
      COMMIT_AHEAD: argv.includes('--commit-ahead') ? '1' : '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

// the window: a little before `from` (claims and adds of the first instant happen up to ~1 s ahead
// with commitAhead; without it at the instant), ending just before `to` (and the runs of [from, to) drain after)
const winStart = from - 500,
  winEnd = to - 500;
await sleepUntil(winStart);
const sl = new Redis({ port: PORT });
const CLEAN = argv.includes('--clean') || CALLGRIND;
await sl.config('SET', 'slowlog-log-slower-than', CLEAN ? '-1' : '0');
await sl.config('SET', 'slowlog-max-len', '100000');
await sl.config('RESETSTAT');
await sl.slowlog('RESET');
if (CALLGRIND) execFileSync('callgrind_control', ['-z', String(child.pid)], { stdio: 'ignore' });
const cpuA = await sl.info('cpu');
const coalescedA = Number((await sl.hget('{pc}:bb:totals', 'coalesced')) ?? 0);
type Agg = { calls: number; us: number; innerUs: number; inner: Map<string, [number, number]> };
const top = new Map<string, Agg>();
let drained = 0;
let pending: [string, number][] = []; // inner entries (client '?:0') of the script logged next
async function drain() {
  const r = await sl.multi().slowlog('GET', -1).slowlog('RESET').exec();
  const entries = (r![0]![1] as [number, number, number, string[], string, string][]).reverse(); // oldest first
  for (const [, , us, args, addr, cname] of entries) {
    let name = String(args[0]).toLowerCase();
    if (addr === '?:0') {
      pending.push([name, us]);
      continue;
    }
    if (name === 'multi' || name === 'exec' || name === 'slowlog' || name === 'info' || name === 'config')
      continue;
    if (name === 'evalsha' || name === 'eval')
      name =
        names.get(String(args[1])) ??
        `sha:${String(args[1]).slice(0, 8)}(${args[2]} keys ${String(args[3]).slice(0, 30)})`;
    else
      name = `${name} ${String(args[1] ?? '')
        .replace(/[0-9a-f]{8}-?[0-9a-f-]*|\d+/g, '#')
        .slice(0, 40)}${cname ? ` [${cname.slice(0, 20)}]` : ''}`;
    const a = top.get(name) ?? { calls: 0, us: 0, innerUs: 0, inner: new Map() };
    a.calls++;
    a.us += us;
    for (const [n, u] of pending) {
      const x = a.inner.get(n) ?? [0, 0];
      x[0]++;
      x[1] += u;
      a.inner.set(n, x);
      a.innerUs += u;
    }
    pending = [];
    top.set(name, a);
    drained++;
  }
}
let polling = true;
const poller = (async () => {
  while (polling) {
    await drain();
    await sleep(200);
  }
})();
await sleepUntil(winEnd);
polling = false;
await poller;
let instructions = 0;
if (CALLGRIND) {
  execFileSync('callgrind_control', ['-d', String(child.pid)], { stdio: 'ignore' });
  const dumps = readdirSync(WORK)
    .filter((f) => f.startsWith(`cg.${PORT}.`))
    .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
  instructions = Number(
    readFileSync(join(WORK, dumps.at(-1)!), 'utf8').match(/^(?:summary|totals): (\d+)/m)![1],
  );
}
await drain();
const cpuB = await sl.info('cpu');
const coalescedB = Number((await sl.hget('{pc}:bb:totals', 'coalesced')) ?? 0);
const cstats = await sl.info('commandstats');
await sl.config('SET', 'slowlog-log-slower-than', '10000');
const cpuOf = (s: string) =>
  ['used_cpu_user', 'used_cpu_sys'].reduce((t, f) => t + Number(s.match(new RegExp(`${f}:(\\S+)`))![1]), 0) *
  1e6;
await sleepUntil(to + 2500);
// runs in the window: handler starts of fire times in [from, to); the window measured Redis over
// [from-500, to-500): the same number of bursts' worth of work
const runs = lateness.length;
const expected = N * SECONDS;
const inner: [string, number, number][] = [];
for (const m of cstats.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
  if (['slowlog', 'multi', 'exec', 'info', 'config'].includes(m[1]!.split('|')[0]!)) continue;
  inner.push([m[1]!, Number(m[2]), Number(m[3])]);
}
const s = [...lateness].sort((a, b) => a - b);
const p = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
const per = (x: number) => (x / Math.max(1, runs)).toFixed(2);
console.log(
  `\n### mode=${MODE} n=${N} seconds=${SECONDS} commitAhead=${argv.includes('--commit-ahead')} callgrind=${CALLGRIND}`,
);
console.log(
  `runs seen ${runs} of ${expected}; lateness p50/p99/max ${p(0.5)}/${p(0.99)}/${s.at(-1)} ms; Redis CPU per run ${per(cpuOf(cpuB) - cpuOf(cpuA))} µs; slowlog entries ${drained}`,
);
if (CALLGRIND) console.log(`Redis instructions per run: ${Math.round(instructions / Math.max(1, runs))}`);
const coalesced = Number((await redis.hget('{pc}:bb:totals', 'coalesced')) ?? 0);
if (MODE !== 'bullmq')
  console.log(`coalesced (total since start): ${coalesced}; in the window: ${coalescedB - coalescedA}`);
if (MODE !== 'bullmq') {
  const fields = await redis.zrevrange('{pc}:bb:runidx:s1', 0, 2);
  for (const f of fields)
    console.log(`record s1 ${f}: ${JSON.stringify(await redis.hgetall(`{pc}:bb:rec:s1:${f}`))}`);
  console.log(`totals: ${JSON.stringify(await redis.hgetall('{pc}:bb:totals'))}`);
}
if (!CLEAN) {
  console.log(
    '\n| top-level command (SLOWLOG, threshold 0: inflated by logging the inner calls) | calls/run | µs/call | µs/run | inner calls/call | inner µs/run | inner commands per call (µs each) |\n|---|---|---|---|---|---|---|',
  );
  let tot = 0;
  for (const [k, a] of [...top].sort((x, y) => y[1].us - x[1].us)) {
    tot += a.us;
    const inn = [...a.inner]
      .sort((x, y) => y[1][0] - x[1][0])
      .map(([n, [c, u]]) => `${n} ${(c / a.calls).toFixed(1)} (${(u / c).toFixed(1)})`)
      .join(', ');
    const ic = [...a.inner.values()].reduce((t, x) => t + x[0], 0);
    console.log(
      `| ${k} | ${per(a.calls)} | ${(a.us / a.calls).toFixed(1)} | ${per(a.us)} | ${(ic / a.calls).toFixed(1)} | ${per(a.innerUs)} | ${inn} |`,
    );
  }
  console.log(
    `| **total** | ${per([...top.values()].reduce((t, a) => t + a.calls, 0))} | | ${per(tot)} | | | |`,
  );
}
console.log('\n| every command run (commandstats, incl. from Lua) | calls/run | µs/call |\n|---|---|---|');
for (const [k, c, u] of inner.sort((x, y) => y[1] - x[1]))
  console.log(`| ${k} | ${per(c)} | ${(u / c).toFixed(2)} |`);
sched?.kill('SIGTERM');
await closeAll();
await sleep(500);
sl.disconnect();
redis.disconnect();
child.kill('SIGTERM');
await sleep(CALLGRIND ? 3000 : 300);
process.exit(0);
