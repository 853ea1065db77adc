// Bulk changes by selector at scale: N schedules (default 100,000) over 4 tenants, then `tenant=acme`
// (N/4) selected, paused and resumed, by the library (`manager.select(...).pause()`) and by the built CLI
// (`bullbeat schedule:pause --selector tenant=acme`, a process of its own, start-up included). Each change
// is checked, not only timed: exactly acme's schedules paused (the status index counts them, and no other
// tenant's is paused), and exactly one entry in the bulk trail with its count. Redis commands per changed
// schedule from INFO commandstats.
//
// Once with the default audit trail (each schedule's own `pause` entry moves its `create` into a stream of
// its own) and once with `auditLimit: 0`; each on a fresh private redis-server the bench starts.
// `--staged S` first puts S delayed jobs of other schedules in the queue, due in 30 s (what spread or the
// fire-rate cap leaves staged there): a pause must not search them once per schedule.
//
//   npm run bench:select-pause      (node --import tsx bench/select-pause.ts [--n 100000] [--partitions 1] [--staged 0])
//
// Needs the build (`npm run build`) for the CLI. Prints progress on stderr and Markdown on stdout.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { defaultQueueOf } from '../src/scheduler/contract/resolve-manager-options.js';
import type { ScheduleManyItem } from '../src/scheduler/manager/schedule-many.js';
import { SchedulerManager } from '../src/scheduler/manager/scheduler-manager.js';
import { openRedis, redisTarget } from '../src/store/connection/redis-target.js';
import { startRedisServer } from '../test/setup/redis-server.js';

const argv = process.argv;
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const N = Number(arg('n', '100000'));
const PARTITIONS = Number(arg('partitions', '1'));
const STAGED = Number(arg('staged', '0'));
const TENANTS = ['acme', 'globex', 'initech', 'umbrella'];
const ACME = Math.ceil(N / TENANTS.length);
const PREFIX = 'selpause';
const CLI = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const silent = pino({ level: 'silent' });
const f = (n: number) => Math.round(n).toLocaleString('en-US');
const log = (text: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${text}`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** bulk-100k.test.ts's schedules: hourly at minute `i % 60`, tenant `i % 4`, a third with a team. */
const item = (i: number): ScheduleManyItem => ({
  target: { name: 'report' },
  trigger: { type: 'cron', expression: `${i % 60} * * * *` },
  options: {
    id: `s${i}`,
    labels: { tenant: TENANTS[i % 4]!, ...(i % 3 === 0 && { team: i % 2 === 0 ? 'ops' : 'billing' }) },
  },
});

/** Every command Redis has run so far (INFO commandstats, `calls` summed). */
async function commandsRun(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  let calls = 0;
  for (const m of stats.matchAll(/calls=(\d+)/g)) calls += Number(m[1]);
  return calls;
}

/** The built CLI as a user runs it; its wall time, start-up included. */
function cli(url: string, args: string[]): Promise<{ ms: number; stdout: string }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args, '--json'], {
      env: { ...process.env, REDIS_URL: url, BULLBEAT_PREFIX: PREFIX },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve({ ms: performance.now() - t, stdout })
        : reject(new Error(`bullbeat ${args.join(' ')}: exit ${code}: ${stderr}`)),
    );
  });
}

interface Row {
  trail: string;
  createS: number;
  selectMs: number;
  steps: { what: string; ms: number; count: number; commandsEach: number }[];
}

/** Exactly acme's schedules paused (`paused`), none of the others; the trail's newest entry is `op` with `count`. */
async function check(m: SchedulerManager, paused: boolean, op: string, count: number): Promise<void> {
  const acme = (await m.listPage({ status: 'paused', selector: 'tenant=acme', limit: 0 })).total;
  const all = (await m.listPage({ status: 'paused', limit: 0 })).total;
  const want = paused ? ACME : 0;
  if (acme !== want || all !== want)
    throw new Error(`after ${op}: ${acme} of acme's and ${all} in all paused, expected ${want}`);
  const [newest] = await m.bulkChanges();
  if (newest?.op !== op || newest.count !== count || newest.selector !== 'tenant=acme')
    throw new Error(`after ${op}: the bulk trail's newest entry is ${JSON.stringify(newest)}`);
}

/** `STAGED` delayed jobs of schedules not among these, in the schedules' queue, due in 30 s. */
async function stageOthers(url: string): Promise<void> {
  const queue = new Queue(defaultQueueOf(PREFIX), { connection: { url } });
  const at = Date.now() + 30_000;
  for (let from = 0; from < STAGED; from += 1_000) {
    const n = Math.min(1_000, STAGED - from);
    const jobs = Array.from({ length: n }, (_, k) => ({
      name: 'report',
      data: {},
      opts: { jobId: `bb-other${from + k}-${at}`, delay: 30_000 },
    }));
    await queue.addBulk(jobs);
  }
  await queue.close();
}

async function run(audit: boolean): Promise<Row> {
  const server = await startRedisServer();
  const redis = openRedis(redisTarget(server.url));
  const m = new SchedulerManager({
    prefix: PREFIX,
    connection: server.url,
    logger: silent,
    role: 'client',
    ...(PARTITIONS > 1 && { partitions: PARTITIONS }),
    ...(audit ? {} : { auditLimit: 0 }),
  });
  const trail = audit ? 'default audit trail' : 'auditLimit: 0';
  try {
    let t = performance.now();
    for (let from = 0; from < N; from += 20_000) {
      const batch = Array.from({ length: Math.min(20_000, N - from) }, (_, k) => item(from + k));
      const r = await m.scheduleMany(batch);
      if (r.failed.length > 0) throw new Error(`scheduleMany: ${r.failed[0]?.error}`);
    }
    const createS = (performance.now() - t) / 1000;
    log(`${trail}: ${f(N)} created in ${createS.toFixed(1)} s (load ${load()})`);
    if (STAGED > 0) await stageOthers(server.url);
    t = performance.now();
    const ids = await m.select('tenant=acme').ids();
    const selectMs = performance.now() - t;
    if (ids.length !== ACME) throw new Error(`tenant=acme selected ${ids.length}, expected ${ACME}`);
    const steps: Row['steps'] = [];
    const step = async (what: string, op: string, paused: boolean, change: () => Promise<number>) => {
      const before = await commandsRun(redis);
      const t0 = performance.now();
      const count = await change();
      const ms = performance.now() - t0;
      const commandsEach = ((await commandsRun(redis)) - before) / count;
      if (count !== ACME) throw new Error(`${what}: changed ${count}, expected ${ACME}`);
      await check(m, paused, op, count);
      steps.push({ what, ms, count, commandsEach });
      log(
        `${trail}: ${what} ${f(count)} in ${(ms / 1000).toFixed(1)} s, ${commandsEach.toFixed(1)} commands each`,
      );
    };
    const cliCount = async (verb: string) =>
      (JSON.parse((await cli(server.url, [verb, '--selector', 'tenant=acme'])).stdout) as { count: number })
        .count;
    await step('pause (library)', 'pause', true, async () => (await m.select('tenant=acme').pause()).count);
    await step(
      'resume (library)',
      'resume',
      false,
      async () => (await m.select('tenant=acme').resume()).count,
    );
    await step('pause (CLI process)', 'pause', true, () => cliCount('schedule:pause'));
    await step('resume (CLI process)', 'resume', false, () => cliCount('schedule:resume'));
    return { trail, createS, selectMs, steps };
  } finally {
    await m.close();
    await redis.quit();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const started = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const loadBefore = load();
  const rows = [await run(true), await run(false)];
  console.log(
    `\n${f(N)} schedules over 4 tenants, tenant=acme ${f(ACME)}, ${PARTITIONS} partition(s), ${f(STAGED)} other jobs staged in the queue; ${started} UTC, load ${loadBefore} → ${load()}`,
  );
  console.log(
    '\n| audit | create (scheduleMany) | select tenant=acme | change | time | per schedule | Redis commands per schedule (calls inside scripts included) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    for (const s of r.steps) {
      console.log(
        `| ${r.trail} | ${r.createS.toFixed(1)} s | ${r.selectMs.toFixed(0)} ms | ${s.what}: ${f(s.count)} | ${(s.ms / 1000).toFixed(2)} s | ${((s.ms * 1000) / s.count).toFixed(0)} us | ${s.commandsEach.toFixed(1)} |`,
      );
    }
  }
}

await main();
