// bullbeat on a Redis Cluster vs a single Redis, on the same box in the same run: a private
// redis-server and a private 3-master + 3-replica cluster (test/setup/redis-cluster.ts), both without
// persistence.
//
// 1. Spread and memory: N idle schedules (every hour) on each. Per master: bullbeat's keys, their bytes
//    (MEMORY USAGE) and used_memory_dataset growth; memory per idle schedule vs the single Redis.
// 2. Fires per second: one scheduler replica (bench/fire-scheduler.ts, a child process) firing R
//    schedules every second (phases spread), nothing consuming; achieved fires/s, enqueue lateness,
//    and each Redis's CPU (used_cpu_user + used_cpu_sys) per fire over the window.
//
// 3. `--wait`: the cluster again with replicaAcks (`--acks 1:50`, WAIT after each enqueue on the queue's
//    master), side by side at each rate, with the replicas' CPU per fire too.
//
//   npm run bench:cluster
//   node --import tsx bench/cluster.ts --n 0 --rates 1000,2000 --wait     (the cost of replicaAcks)
//   node --import tsx bench/cluster.ts --n 20000 --rates 2000 --seconds 4     (quicker)
//
// Prints Markdown, ready for BENCHMARKS.md.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { SchedulerManager } from '../src/scheduler/manager/scheduler-manager.js';
import { openRedis, redisTarget } from '../src/store/connection/redis-target.js';
import { IntervalTrigger } from '../src/triggers/interval-trigger.js';
import { startCluster } from '../test/setup/redis-cluster.js';
import { startRedisServer } from '../test/setup/redis-server.js';

const argv = process.argv;
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const N = Number(arg('n', '100000'));
const RATES = arg('rates', '2000,5000').split(',').filter(Boolean).map(Number);
const SECONDS = Number(arg('seconds', '6'));
/** The cluster's partition count ('' = the default on a cluster). */
const PARTITIONS = arg('partitions', '');
/** A third row per rate: the cluster with replicaAcks (BULLBEAT_REPLICA_ACKS=<--acks>). */
const WAIT = argv.includes('--wait');
const ACKS = arg('acks', '1:50');
const SCHEDULER = fileURLToPath(new URL('./fire-scheduler.ts', import.meta.url));
const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const f = (n: number) => Math.round(n).toLocaleString('en-US');

interface Target {
  name: string;
  connection: string | { cluster: string };
  env: Record<string, string>;
  /** One client per Redis holding data (the masters, or the single Redis), by label. */
  masters(): Promise<Map<string, Redis>>;
  /** One client per replica (none on the single Redis). */
  replicas(): Promise<Map<string, Redis>>;
  client: Redis;
  /** Only in the fires/s part (`--wait`). */
  ratesOnly?: boolean;
}

async function info(r: Redis, section: string, field: string): Promise<number> {
  const text = await r.info(section);
  return Number(text.match(new RegExp(`${field}:(\\S+)`))?.[1] ?? 0);
}
const cpuUs = async (r: Redis) =>
  Math.round(((await info(r, 'cpu', 'used_cpu_user')) + (await info(r, 'cpu', 'used_cpu_sys'))) * 1e6);

async function redisNow(r: Redis): Promise<number> {
  const [s, us] = await r.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

async function sleepUntil(r: Redis, at: number): Promise<void> {
  for (let left = at - (await redisNow(r)); left > 0; left = at - (await redisNow(r))) {
    await sleep(left > 50 ? Math.min(left - 20, 1000) : left);
  }
}

/** Create n schedules (every `seconds`, phases spread over it) under a prefix. */
async function create(t: Target, n: number, prefix: string, queue: string, every: number, startAt?: number) {
  const m = new SchedulerManager({
    prefix,
    defaultQueue: queue,
    connection: t.connection,
    logger: silent,
    role: 'client',
    ...(PARTITIONS !== '' && typeof t.connection !== 'string' && { partitions: Number(PARTITIONS) }),
  });
  const saved: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    saved.push(
      m.schedule(
        { name: 'tick' },
        new IntervalTrigger(every, { anchor: Math.floor((i * every * 1000) / n) }),
        {
          id: `s${i}`,
          ...(startAt !== undefined && { startAt }),
          jobOptions: { removeOnComplete: { age: 5 }, removeOnFail: { age: 5 } },
        },
      ).saved,
    );
    if (saved.length >= 2000) await Promise.all(saved.splice(0));
  }
  await Promise.all(saved);
  await m.close();
}

/** bullbeat's keys under `{prefix...` on one Redis: count and MEMORY USAGE bytes. */
async function keysOn(r: Redis, prefix: string): Promise<{ keys: number; bytes: number }> {
  let keys = 0;
  let bytes = 0;
  let cursor = '0';
  do {
    const [next, batch] = await r.scan(cursor, 'MATCH', `{${prefix}*`, 'COUNT', 1000);
    cursor = next;
    keys += batch.length;
    for (const k of batch) bytes += Number((await r.memory('USAGE', k, 'SAMPLES', '0')) ?? 0);
  } while (cursor !== '0');
  return { keys, bytes };
}

async function memoryPart(t: Target) {
  const prefix = `bench-mem-${randomUUID().slice(0, 8)}`;
  const masters = await t.masters();
  const before = new Map<string, number>();
  for (const [label, r] of masters) before.set(label, await info(r, 'memory', 'used_memory_dataset'));
  const t0 = performance.now();
  await create(t, N, prefix, `bench-mem-q`, 3600);
  const createSec = (performance.now() - t0) / 1000;
  await sleep(2000); // replication buffers drained
  const rows: { label: string; keys: number; bytes: number; grown: number }[] = [];
  for (const [label, r] of masters) {
    const k = await keysOn(r, prefix);
    rows.push({ label, ...k, grown: (await info(r, 'memory', 'used_memory_dataset')) - before.get(label)! });
  }
  return { rows, createSec };
}

function spawnScheduler(env: Record<string, string>): {
  child: ChildProcess;
  out: Promise<string>;
  ready: Promise<void>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', SCHEDULER], {
    env: { ...process.env, KEEP_SEC: '5', FOREIGN: '0', BACKPRESSURE: '0', ...env },
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
  return { child, out, ready };
}

async function ratePart(t: Target, rate: number) {
  const id = randomUUID().slice(0, 8);
  const prefix = `bench-rate-${id}`;
  const queue = `bench-rate-${id}`;
  const t0 = await redisNow(t.client);
  await create(t, rate, prefix, queue, 1, t0 + 4000);
  const from = Math.max(t0 + 5000, (await redisNow(t.client)) + 2000);
  const to = from + SECONDS * 1000;
  const sched = spawnScheduler({
    ...t.env,
    PREFIX: prefix,
    FROM: String(from),
    TO: String(to),
    BATCH: '1000',
  });
  await sched.ready;
  const masters = await t.masters();
  await sleepUntil(t.client, from);
  const replicas = await t.replicas();
  const cpu0 = new Map<string, number>();
  for (const [label, r] of masters) cpu0.set(label, await cpuUs(r));
  let replicaCpu0 = 0;
  for (const r of replicas.values()) replicaCpu0 += await cpuUs(r);
  await sleepUntil(t.client, to);
  const cpu = new Map<string, number>();
  for (const [label, r] of masters) cpu.set(label, (await cpuUs(r)) - cpu0.get(label)!);
  let replicaCpu = -replicaCpu0;
  for (const r of replicas.values()) replicaCpu += await cpuUs(r);
  await sleepUntil(t.client, to + 1000);
  sched.child.kill('SIGTERM');
  // (the scheduler's own warnings are JSON lines too: its report is the one with `lateness`)
  const out = JSON.parse(
    (await sched.out).split('\n').find((l) => l.startsWith('{') && l.includes('"lateness"'))!,
  ) as {
    lateness: number[];
    cpuPerFireUs: number;
    stats?: { replicaWaits?: number; underAcked?: number };
  };
  const sorted = [...out.lateness].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
  const fires = Math.max(1, sorted.length);
  return {
    rate,
    achieved: sorted.length / SECONDS,
    p50: pct(50),
    p99: pct(99),
    cpuPerFire: [...cpu].map(([label, us]) => ({ label, us: us / fires })),
    replicaUs: replicas.size > 0 ? replicaCpu / fires : undefined,
    schedUs: out.cpuPerFireUs,
    waits: out.stats?.replicaWaits ?? 0,
    short: out.stats?.underAcked ?? 0,
  };
}

const single = await startRedisServer();
const cluster = await startCluster({ nodeTimeoutMs: 5000 });
const masterClients = new Map<number, Redis>();
const nodeClient = (port: number) => {
  let r = masterClients.get(port);
  if (!r) {
    r = openRedis({ host: '127.0.0.1', port });
    r.on('error', () => undefined);
    masterClients.set(port, r);
  }
  return r;
};
/** The current masters (a client each, kept), labelled by port order. */
const mastersOf = async (): Promise<Map<string, Redis>> => {
  const { masters } = await cluster.roles();
  return new Map(
    masters.sort((a, b) => a - b).map((port, i) => [`master ${i + 1}`, nodeClient(port)] as const),
  );
};
const replicasOf = async (): Promise<Map<string, Redis>> => {
  const { replicaOf } = await cluster.roles();
  return new Map(
    [...replicaOf.values()]
      .sort((a, b) => a - b)
      .map((port, i) => [`replica ${i + 1}`, nodeClient(port)] as const),
  );
};
const singleClient = openRedis(redisTarget(single.url));
const targets: Target[] = [
  {
    name: 'single Redis',
    connection: single.url,
    env: { REDIS_URL: single.url, BULLBEAT_REPLICA_ACKS: '0' },
    masters: async () => new Map([['single', singleClient]]),
    replicas: async () => new Map(),
    client: singleClient,
  },
  {
    name: 'Redis Cluster (3 masters)',
    connection: { cluster: cluster.nodesText },
    env: {
      CLUSTER_NODES: cluster.nodesText,
      BULLBEAT_REPLICA_ACKS: '0',
      ...(PARTITIONS !== '' && { PARTITIONS }),
    },
    masters: mastersOf,
    replicas: replicasOf,
    client: openRedis(redisTarget({ cluster: cluster.nodesText })),
  },
];
if (WAIT) {
  targets.push({
    ...targets[1]!,
    name: `Redis Cluster, replicaAcks ${ACKS}`,
    env: { ...targets[1]!.env, BULLBEAT_REPLICA_ACKS: ACKS },
    ratesOnly: true,
  });
}

try {
  const load = (await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(
    `\n_${new Date().toISOString()}, load ${load}, N ${N}, rates ${RATES.join(', ')}, ${SECONDS} s each_\n`,
  );
  if (N > 0) {
    console.log(`### ${f(N)} idle schedules: keys and memory per Redis\n`);
    console.log(
      '| deployment | Redis | bullbeat keys | share of keys | MEMORY USAGE (bytes) | share of bytes | used_memory_dataset growth | per schedule (B) |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    const perSchedule: Record<string, number> = {};
    for (const t of targets.filter((x) => !x.ratesOnly)) {
      const { rows, createSec } = await memoryPart(t);
      const keys = rows.reduce((a, r) => a + r.keys, 0);
      const bytes = rows.reduce((a, r) => a + r.bytes, 0);
      const grown = rows.reduce((a, r) => a + r.grown, 0);
      for (const r of rows) {
        console.log(
          `| ${t.name} | ${r.label} | ${f(r.keys)} | ${((100 * r.keys) / keys).toFixed(1)} % | ${f(r.bytes)} | ${((100 * r.bytes) / bytes).toFixed(1)} % | ${f(r.grown)} | ${(r.grown / N).toFixed(0)} |`,
        );
      }
      perSchedule[t.name] = grown / N;
      console.log(
        `| ${t.name} | **all** (created in ${createSec.toFixed(1)} s) | ${f(keys)} | | ${f(bytes)} | | ${f(grown)} | **${(grown / N).toFixed(0)}** (bytes ${(bytes / N).toFixed(0)}) |`,
      );
    }
    const [a, b] = Object.values(perSchedule) as [number, number];
    console.log(`\nMemory per idle schedule, cluster / single: ${(b / a).toFixed(2)}x\n`);
  }
  if (RATES.length > 0) {
    console.log('### Fires per second: one scheduler replica, nothing consuming\n');
    console.log(
      `| deployment | target fires/s | achieved | enqueue p50 / p99 (ms) | Redis CPU per fire, each (µs) | Redis CPU per fire, total (µs) | replicas' CPU per fire (µs) | scheduler CPU per fire (µs) |${WAIT ? ' WAITs (short) |' : ''}`,
    );
    console.log(`| --- | --- | --- | --- | --- | --- | --- | --- |${WAIT ? ' --- |' : ''}`);
    for (const rate of RATES) {
      for (const t of targets) {
        const r = await ratePart(t, rate);
        const total = r.cpuPerFire.reduce((a, c) => a + c.us, 0);
        console.log(
          `| ${t.name} | ${f(rate)} | ${f(r.achieved)} | ${f(r.p50)} / ${f(r.p99)} | ${r.cpuPerFire.map((c) => `${c.label}: ${c.us.toFixed(0)}`).join(', ')} | ${total.toFixed(0)} | ${r.replicaUs === undefined ? '–' : r.replicaUs.toFixed(0)} | ${r.schedUs.toFixed(0)} |${WAIT ? ` ${r.waits > 0 ? `${f(r.waits)} (${f(r.short)})` : '–'} |` : ''}`,
        );
      }
    }
  }
} finally {
  for (const t of targets) t.client.disconnect();
  for (const r of masterClients.values()) r.disconnect();
  await cluster.stop();
  await single.stop();
}
process.exit(0);
