// What a master SIGKILLed mid-run loses, with and without replicaAcks (WAIT after each enqueue), on
// a private 3-master + 3-replica cluster (test/setup/redis-cluster.ts, cluster-node-timeout 1 s), a
// fresh one per run. Each run: 2 scheduler replica processes (test/scheduler/fixtures/replica.ts)
// firing S schedules every second (phases spread) into a plain BullMQ consumer; 2.5 s in, the master
// holding the queue's slot (and 8 of the 24 partitions) is SIGKILLed; its replica is promoted; after
// `--seconds` every occurrence due in the window is checked: lost (never ran), twice (ran twice).
// Runs alternate off / on, `--runs` of each.
//
//   npm run bench:cluster-failover -- --runs 5 --schedules 300 --seconds 10
//
// Prints one line per run and a Markdown summary.
import { type ChildProcess, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { keySlot } from '../src/store/keys/partitions.js';
import { clusterEnv, masterOfSlot, redisNow } from '../test/cluster/helpers.js';
import { type LocalCluster, startCluster } from '../test/setup/redis-cluster.js';
import { waitUntil } from '../test/wait-until.js';

const argv = process.argv;
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const RUNS = Number(arg('runs', '5'));
const SCHEDULES = Number(arg('schedules', '300'));
const SECONDS = Number(arg('seconds', '10'));
const ACKS = arg('acks', '1:50');
const REPLICA = fileURLToPath(new URL('../test/scheduler/fixtures/replica.ts', import.meta.url));

interface Replica {
  child: ChildProcess;
  out: string;
  exited: Promise<unknown>;
}

function spawnReplica(cluster: LocalCluster, vars: Record<string, string>): Replica {
  const child = spawn(process.execPath, ['--import', 'tsx', REPLICA], {
    // REDIS_URL: the fixture imports test/redis-url.ts; it connects to CLUSTER_NODES
    env: {
      REDIS_URL: 'redis://127.0.0.1:1',
      ...process.env,
      CLUSTER_NODES: cluster.nodesText,
      LOG_LEVEL: 'error',
      ...vars,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const r: Replica = { child, out: '', exited: new Promise((resolve) => child.on('exit', resolve)) };
  child.stdout?.on('data', (d) => (r.out += String(d)));
  return r;
}

function expected(count: number, from: number, to: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const anchor = Math.floor((i * 1000) / count);
    for (let t = Math.ceil((from - anchor) / 1000) * 1000 + anchor; t < to; t += 1000) out.push(`s${i}@${t}`);
  }
  return out;
}

async function oneRun(acks: boolean) {
  const cluster = await startCluster({ nodeTimeoutMs: 1000 });
  const env = clusterEnv(cluster, acks ? 'wait' : 'nowait');
  try {
    const { runs } = env.consumer(100);
    const vars = {
      PREFIX: env.prefix,
      QUEUE: env.queue,
      SCHEDULES: String(SCHEDULES),
      LEASE_MS: '1500',
      KEEP_SEC: '60',
      BULLBEAT_REPLICA_ACKS: acks ? ACKS : '0',
    };
    const live = [spawnReplica(cluster, vars), spawnReplica(cluster, vars)];
    await waitUntil(() => live.every((r) => r.out.includes('ready')), 60_000, { stepMs: 50 });
    const t0 = await redisNow(env.redis);
    await waitUntil(async () => (await redisNow(env.redis)) > t0 + 2500, 20_000, { stepMs: 20 });
    const victim = await masterOfSlot(cluster, keySlot(`{bull:${env.queue}}`));
    const heir = (await cluster.roles()).replicaOf.get(victim)!;
    const killedAt = await redisNow(env.redis);
    await cluster.kill(victim);
    await waitUntil(async () => (await cluster.roles()).masters.includes(heir), 30_000, { stepMs: 100 });
    await cluster.waitOk();
    const promotedMs = (await redisNow(env.redis).catch(() => killedAt)) - killedAt;
    await waitUntil(async () => (await redisNow(env.redis)) > t0 + SECONDS * 1000, 60_000, { stepMs: 100 });
    const t1 = await redisNow(env.redis);
    const want = expected(SCHEDULES, t0 + 1000, t1);
    const lostOf = () => want.filter((k) => !runs.has(k));
    await waitUntil(() => lostOf().length === 0, 20_000, { stepMs: 100 }).catch(() => undefined);
    for (const r of live) r.child.kill('SIGTERM');
    await Promise.all(live.map((r) => r.exited));
    const stats = live.map(
      (r) =>
        JSON.parse(r.out.match(/stats (.*)/)?.[1] ?? '{}') as { replicaWaits?: number; underAcked?: number },
    );
    const lost = lostOf();
    const twice = [...runs].filter(([k, n]) => n > 1 && want.includes(k)).map(([k]) => k);
    return {
      acks,
      occurrences: want.length,
      lost: lost.length,
      twice: twice.length,
      lostSample: lost.slice(0, 5),
      promotedMs,
      waits: stats.reduce((a, s) => a + (s.replicaWaits ?? 0), 0),
      short: stats.reduce((a, s) => a + (s.underAcked ?? 0), 0),
    };
  } finally {
    await env.cleanup();
    await cluster.stop();
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(
  `_${new Date().toISOString()}, load ${load()}, ${RUNS} runs each, ${SCHEDULES} schedules every second, ${SECONDS} s, replicaAcks ${ACKS}_\n`,
);
const results: Awaited<ReturnType<typeof oneRun>>[] = [];
for (let i = 0; i < RUNS; i++) {
  for (const acks of i % 2 === 0 ? [false, true] : [true, false]) {
    const r = await oneRun(acks);
    results.push(r);
    console.log(
      `run ${results.length}: replicaAcks ${acks ? 'on ' : 'off'} | ${r.occurrences} occurrences | lost ${r.lost} | twice ${r.twice} | WAITs ${r.waits}, short ${r.short} | promoted ${r.promotedMs} ms after the kill | load ${load()}${r.lost > 0 ? ` | lost e.g. ${r.lostSample.join(' ')}` : ''}`,
    );
  }
}
console.log('\n| replicaAcks | runs | occurrences | lost | twice | runs with a loss | WAITs (short) |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const acks of [false, true]) {
  const rs = results.filter((r) => r.acks === acks);
  const sum = (f: (r: (typeof rs)[number]) => number) => rs.reduce((a, r) => a + f(r), 0);
  console.log(
    `| ${acks ? `on (${ACKS})` : 'off'} | ${rs.length} | ${sum((r) => r.occurrences)} | ${sum((r) => r.lost)} | ${sum((r) => r.twice)} | ${rs.filter((r) => r.lost > 0).length} | ${sum((r) => r.waits)} (${sum((r) => r.short)}) |`,
  );
}
process.exit(0);
