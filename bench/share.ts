// How scheduler replicas share the occurrences, in the default configuration, as users run them:
// R replica processes (test/scheduler/fixtures/default-replica.ts), N schedules every P seconds, aligned
// (all due at the same instant) and spread over the period, a plain BullMQ Worker running every job.
// Each occurrence's record names the replica whose claim enqueued it: the share of each replica is
// counted per burst and over the window. Target: each within 33 % ± 10 with 3 replicas.
//
//   node --import tsx bench/share.ts [--replicas 3] [--n 1000] [--period 5] [--seconds 60] [--shapes aligned,spread]
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { keys } from '../src/store/keys/keys.js';
import { RunHistory } from '../src/store/reads/run-history.js';

const REPLICA = fileURLToPath(new URL('../test/scheduler/fixtures/default-replica.ts', import.meta.url));
const URL_ = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const argv = process.argv;
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? (argv[i + 1] ?? fallback) : fallback;
};
const REPLICAS = Number(arg('replicas', '3'));
const N = Number(arg('n', '1000'));
const PERIOD_S = Number(arg('period', '5'));
const SECONDS = Number(arg('seconds', '60'));
const SHAPES = arg('shapes', 'aligned,spread').split(',');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function redisNow(redis: Redis): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

async function measure(aligned: boolean): Promise<string> {
  const id = `share-${randomUUID().slice(0, 8)}`;
  const prefix = `b-${id}`;
  const queue = `q-${id}`;
  const redis = new Redis(URL_, { maxRetriesPerRequest: null });
  const worker = new Worker(queue, async () => undefined, {
    connection: { url: URL_, maxRetriesPerRequest: null },
    concurrency: 200,
  });
  const children: { child: ChildProcess; ready: () => boolean; exited: Promise<void> }[] = [];
  for (let r = 0; r < REPLICAS; r++) {
    const child = spawn(process.execPath, ['--import', 'tsx', REPLICA], {
      env: {
        ...process.env,
        REDIS_URL: URL_,
        PREFIX: prefix,
        QUEUE: queue,
        SCHEDULES: String(N),
        PERIOD_S: String(PERIOD_S),
        ALIGNED: aligned ? '1' : '0',
        LOG_LEVEL: 'error',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (d) => (out += String(d)));
    children.push({
      child,
      ready: () => out.includes('ready'),
      exited: new Promise((r) => child.on('exit', () => r())),
    });
  }
  try {
    while (!children.every((c) => c.ready())) await sleep(50);
    // the window starts one period after every replica is up (their first claims behind them)
    const t0 = (await redisNow(redis)) + PERIOD_S * 1000;
    const t1 = t0 + SECONDS * 1000;
    while ((await redisNow(redis)) < t1 + 2000) await sleep(250);
    for (const c of children) c.child.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exited));

    const pids = new Map(children.map((c, i) => [String(c.child.pid), i]));
    const history = new RunHistory(redis, keys(prefix, 1));
    const total = Array.from({ length: REPLICAS }, () => 0);
    const perBurst = new Map<number, number[]>();
    let notRun = 0;
    let unattributed = 0;
    for (let i = 0; i < N; i++) {
      for (const rec of await history.list(`s${i}`, 1000)) {
        if (rec.fireAt < t0 || rec.fireAt >= t1) continue;
        if (rec.outcome === 'skipped' || rec.outcome === 'missed') {
          notRun++;
          continue;
        }
        const r = pids.get(rec.replica?.split(':').pop() ?? '');
        if (r === undefined) {
          unattributed++;
          continue;
        }
        total[r]!++;
        // a burst: the occurrences of one period (aligned: one instant)
        const burst = Math.floor((rec.fireAt - t0) / (PERIOD_S * 1000));
        const row = perBurst.get(burst) ?? total.map(() => 0);
        row[r]!++;
        perBurst.set(burst, row);
      }
    }
    const all = total.reduce((a, b) => a + b, 0);
    const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)} %`;
    const bursts = [...perBurst.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, row]) => row.join('/'))
      .join(', ');
    return (
      `| ${aligned ? 'aligned' : 'spread'} | ${all} | ${total.map((n) => pct(n, all)).join(' / ')} | ` +
      `${notRun} | ${unattributed} | ${bursts} |`
    );
  } finally {
    for (const c of children) c.child.kill('SIGKILL');
    await worker.close();
    const q = new Queue(queue, { connection: { url: URL_ } });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `{${prefix}}*`, 'COUNT', 1000);
      cursor = next;
      if (batch.length > 0) await redis.unlink(...batch);
    } while (cursor !== '0');
    redis.disconnect();
  }
}

const load = (await import('node:os')).loadavg().map((l) => l.toFixed(1));
console.log(
  `${new Date().toISOString()}, \`node --import tsx bench/share.ts --replicas ${REPLICAS} --n ${N} --period ${PERIOD_S} --seconds ${SECONDS}\`, load ${load.join(' ')}\n`,
);
console.log(
  '| shape | occurrences run | share of each replica | not run (recorded) | no replica named | per burst (each replica) |',
);
console.log('|---|---|---|---|---|---|');
for (const shape of SHAPES) console.log(await measure(shape === 'aligned'));
