// Chaos in the default configuration: scheduler replicas as separate processes
// (test/scheduler/fixtures/default-replica.ts, nothing set but where and what), SIGKILLed and
// restarted, and plain BullMQ consumers that count every run. Used by test/chaos/*.test.ts (short
// runs, asserted) and `npm run bench:failover` (larger shapes, printed).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { type ConnectionOptions, type Job, Queue, Worker } from 'bullmq';
import { type Cluster, Cluster as ClusterClient, type Redis } from 'ioredis';
import {
  bullConnection,
  openRedis,
  queuePrefixFor,
  redisTarget,
} from '../../src/store/connection/redis-target.js';
import { type OccurrenceJobData, occurrenceJobId } from '../../src/store/forms/job-payload.js';
import { keys } from '../../src/store/keys/keys.js';
import { DEFAULT_CLUSTER_PARTITIONS } from '../../src/store/keys/partitions.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { childFixture } from '../setup/child-fixtures.js';

export interface ChaosPlan {
  /** One Redis (its URL) or a cluster (its nodes, `host:port,...`). */
  where: { url: string } | { clusterNodes: string };
  replicas: number;
  schedules: number;
  /** All schedules due at the same instant (the whole second), or phases spread over the second. */
  aligned: boolean;
  /** How long the kills go on, at least. */
  seconds: number;
  /** The kills go on past `seconds` until there were this many (a loaded box restarts replicas slowly). */
  minKills?: number;
  /**
   * `churn`: one replica at random SIGKILLed every 1-2 s; `active`: every 3 s, the replica that
   * enqueued the latest occurrence of `s0`; `pair`: two at random every 3 s. Each is replaced at once.
   * `none`: no kill (replicas started together).
   */
  kills: 'churn' | 'active' | 'pair' | 'none';
  /** Plain BullMQ consumers, 50 concurrent runs each. */
  consumers?: number;
  log?: (line: string) => void;
}

export interface ChaosResult {
  expected: number;
  ran: number;
  /** Occurrences run more than once. */
  twice: string[];
  /**
   * Occurrences of the window that did not run, each with what its record says (or `no record`) and its
   * BullMQ job's state (`missing`: never added, or removed).
   */
  notRun: { key: string; why: string; job: string }[];
  /**
   * Start lateness (BullMQ's `processedOn` - fire time), ms: of the window's runs, and of the previous job
   * of each occurrence coalesced because the consumer was behind (the job that stood for it).
   */
  lateP50: number;
  lateP99: number;
  lateMax: number;
  /** Of the first occurrence due after every replica said ready: start lateness, ms (-1: it did not run). */
  firstLateMs: number;
  /** Its enqueue lateness (the scheduler's part), ms. */
  firstAddedLateMs: number;
  kills: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function redisNow(redis: Redis | Cluster): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

interface Replica {
  child: ChildProcess;
  exited: Promise<void>;
  ready: () => boolean;
}

export async function runChaos(plan: ChaosPlan): Promise<ChaosResult> {
  // compiled against the build: the tiers' global setup, or bench/failover.ts, compiles it first
  const replica = childFixture('test/scheduler/fixtures/default-replica.ts');
  const log = plan.log ?? (() => undefined);
  const id = `chaos-${randomUUID().slice(0, 8)}`;
  const prefix = `t-${id}`;
  const queue = `q-${id}`;
  const cluster = 'clusterNodes' in plan.where;
  const target = cluster
    ? redisTarget({ cluster: (plan.where as { clusterNodes: string }).clusterNodes })
    : redisTarget((plan.where as { url: string }).url);
  const redis = openRedis(target) as Redis | Cluster;
  const history = new RunHistory(redis as Redis, keys(prefix, cluster ? DEFAULT_CLUSTER_PARTITIONS : 1));
  const children: Replica[] = [];

  const spawnReplica = (): Replica => {
    const child = spawn(process.execPath, [replica], {
      env: {
        ...process.env,
        ...('url' in plan.where ? { REDIS_URL: plan.where.url } : { REDIS_URL: 'redis://127.0.0.1:1' }),
        ...('clusterNodes' in plan.where && { CLUSTER_NODES: plan.where.clusterNodes }),
        PREFIX: prefix,
        QUEUE: queue,
        SCHEDULES: String(plan.schedules),
        ALIGNED: plan.aligned ? '1' : '0',
        LOG_LEVEL: 'error',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (d) => (out += String(d)));
    const r: Replica = {
      child,
      exited: new Promise((resolve) => child.on('exit', () => resolve())),
      ready: () => out.includes('ready'),
    };
    children.push(r);
    return r;
  };

  // The consumers: each run counted, with its start lateness.
  const runs = new Map<string, number>();
  const late = new Map<string, number>();
  /** Enqueue lateness (BullMQ's `timestamp` - fire time): the scheduler's part of `late`. */
  const added = new Map<string, number>();
  const consumers: Worker[] = [];
  const connections: ConnectionOptions[] = [];
  for (let i = 0; i < (plan.consumers ?? 2); i++) {
    const connection = bullConnection(target);
    connections.push(connection as ConnectionOptions);
    const worker = new Worker<OccurrenceJobData>(
      queue,
      async (job: Job<OccurrenceJobData>) => {
        const { scheduleId, fireAt } = job.data;
        const k = `${scheduleId}@${fireAt}`;
        runs.set(k, (runs.get(k) ?? 0) + 1);
        if (!late.has(k)) {
          late.set(k, (job.processedOn ?? Date.now()) - fireAt);
          added.set(k, job.timestamp - fireAt);
        }
      },
      { connection: connection as ConnectionOptions, prefix: queuePrefixFor(target, queue), concurrency: 50 },
    );
    worker.on('error', () => undefined);
    consumers.push(worker);
  }

  let kills = 0;
  try {
    const live = Array.from({ length: plan.replicas }, spawnReplica);
    const waitReady = async (rs: Replica[]) => {
      const end = Date.now() + 60_000;
      while (!rs.every((r) => r.ready())) {
        if (Date.now() > end) throw new Error('chaos: replicas not ready in 60 s');
        await sleep(20);
      }
    };
    // the first replica's schedules are due from the whole second after it is ready
    const firstReady = await (async () => {
      while (!live.some((r) => r.ready())) await sleep(5);
      return redisNow(redis);
    })();
    await waitReady(live);
    const allReady = await redisNow(redis);
    const firstDue = Math.ceil((allReady + 1) / 1000) * 1000;
    log(`replicas ready: first at ${firstReady}, all at ${allReady}`);
    const t0 = Math.ceil((allReady + 1000) / 1000) * 1000;
    await sleep(Math.max(0, t0 - (await redisNow(redis))));
    const end = t0 + plan.seconds * 1000;

    const replace = async (victims: Replica[]) => {
      for (const v of victims) {
        live.splice(live.indexOf(v), 1);
        v.child.kill('SIGKILL');
      }
      await Promise.all(victims.map((v) => v.exited));
      kills += victims.length;
      for (const _ of victims) live.push(spawnReplica());
    };
    // victims among the replicas that are up (a replacement still starting is not one), always leaving
    // one up: the promise is about a deployment with at least one live replica
    const pick = async (n: number) => {
      while (live.filter((r) => r.ready()).length < n + 1) await sleep(20);
      const pool = live.filter((r) => r.ready());
      const out: Replica[] = [];
      while (out.length < n && pool.length > 0)
        out.push(pool.splice(Math.floor(Math.random() * pool.length), 1)[0]!);
      return out;
    };
    let overran = false;
    const killing = async () => {
      if (plan.kills === 'none') return false;
      if ((await redisNow(redis)) < end - 500) return true;
      if (kills >= (plan.minKills ?? 0)) return false;
      overran = true;
      return true;
    };
    while (await killing()) {
      if (plan.kills === 'churn') {
        await sleep(1000 + Math.random() * 1000);
        await replace(await pick(1));
      } else {
        await sleep(3000);
        if (!(await killing())) break;
        if (plan.kills === 'pair') await replace(await pick(2));
        else {
          // the active replica: the one whose claim enqueued s0's latest occurrence
          while (live.filter((r) => r.ready()).length < 2) await sleep(20);
          const [latest] = await history.list('s0', 1);
          const pid = Number(latest?.replica?.split(':').pop());
          const active = live.find((r) => r.child.pid === pid && r.ready()) ?? (await pick(1))[0]!;
          await replace([active]);
        }
      }
    }
    await sleep(Math.max(0, end - (await redisNow(redis))));
    // the window: until `end`, or until the last kill when the kills went on past it
    const t1 = overran ? Math.max(end, await redisNow(redis)) : end;

    const want: string[] = [];
    for (let i = 0; i < plan.schedules; i++) {
      const anchor = plan.aligned ? 0 : Math.floor((i * 1000) / plan.schedules);
      for (let t = Math.ceil((t0 - anchor) / 1000) * 1000 + anchor; t < t1; t += 1000)
        want.push(`s${i}@${t}`);
    }
    // wait for the window's occurrences to run (the last ones, or ones taken over, a little later: a claim
    // batch of a replica killed at the window's end is taken over only after its lease lapses, which on a
    // box busy with the rest of the suite took more than 8 s once; the promise is once, not how soon)
    const settle = Date.now() + 20_000;
    while (Date.now() < settle && !want.every((w) => runs.has(w))) await sleep(100);

    const notRun: { key: string; why: string; job: string }[] = [];
    const jobs = new Queue(queue, { connection: connections[0]!, prefix: queuePrefixFor(target, queue) });
    for (const w of want) {
      if (runs.has(w)) continue;
      const [sid, at] = w.split('@') as [string, string];
      // its own record, or the one the read model shows for an occurrence coalesced in a span (kept on
      // the stand-in's record: `coalescedAfter` when the consumer was behind, `coalescedBefore` when
      // the scheduler was)
      const rec = await history.find(sid, Number(at));
      if (notRun.length < 3 && rec) {
        const stand = rec.standIn !== undefined ? await history.get(sid, rec.standIn) : null;
        log(`not run ${w}: ${JSON.stringify(rec)}; stand-in ${JSON.stringify(stand)}`);
      }
      const job = await jobs.getJobState(occurrenceJobId(sid, Number(at))).catch((err: Error) => err.message);
      notRun.push({
        key: w,
        job: job === 'unknown' ? 'missing' : job,
        why: rec
          ? `${rec.outcome}${rec.reason ? `: ${rec.reason}` : ''}${rec.coalescedBy ? ` (${rec.coalescedBy})` : ''}`
          : 'no record',
      });
    }
    await jobs.close();
    // An occurrence coalesced because the consumer was behind stands for its previous job's late start
    // (backpressure coalesces only over a job that waited half a period): that start is judged with
    // the window's, also when the previous occurrence fired just before the window.
    const inWindow = new Set(want);
    const standIns = notRun
      .filter((n) => n.why.endsWith('(consumer-behind)'))
      .map((n) => {
        const [sid, at] = n.key.split('@') as [string, string];
        return `${sid}@${Number(at) - 1000}`;
      })
      .filter((k) => !inWindow.has(k) && late.has(k));
    const lateness = [...want, ...new Set(standIns)]
      .flatMap((w) => (late.has(w) ? [late.get(w)!] : []))
      .sort((a, b) => a - b);
    const q = (p: number) => lateness[Math.min(lateness.length - 1, Math.floor(p * lateness.length))] ?? -1;
    const firstKey = [...Array(plan.schedules).keys()]
      .map((i) => {
        const anchor = plan.aligned ? 0 : Math.floor((i * 1000) / plan.schedules);
        const t = Math.ceil((allReady + 1 - anchor) / 1000) * 1000 + anchor;
        return { k: `s${i}@${t}`, t };
      })
      .sort((a, b) => a.t - b.t)[0]!;
    void firstDue;
    return {
      expected: want.length,
      ran: want.filter((w) => runs.has(w)).length,
      twice: [...runs].filter(([, n]) => n > 1).map(([k]) => k),
      notRun,
      lateP50: q(0.5),
      lateP99: q(0.99),
      lateMax: lateness[lateness.length - 1] ?? -1,
      firstLateMs: late.get(firstKey.k) ?? -1,
      firstAddedLateMs: added.get(firstKey.k) ?? -1,
      kills,
    };
  } finally {
    for (const c of children) c.child.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await Promise.all(consumers.map((w) => w.close().catch(() => undefined)));
    for (const c of connections) if (c instanceof ClusterClient) c.disconnect();
    const q = new Queue(queue, {
      connection: bullConnection(target) as ConnectionOptions,
      prefix: queuePrefixFor(target, queue),
    });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    if (!cluster) {
      let cursor = '0';
      do {
        const [next, batch] = await (redis as Redis).scan(cursor, 'MATCH', `{${prefix}}*`, 'COUNT', 1000);
        cursor = next;
        if (batch.length > 0) await (redis as Redis).unlink(...batch);
      } while (cursor !== '0');
    }
    redis.disconnect();
  }
}

/** One line for a log or a benchmark table. */
export function describeChaos(plan: ChaosPlan, r: ChaosResult): string {
  const reasons = new Map<string, number>();
  for (const n of r.notRun) reasons.set(n.why, (reasons.get(n.why) ?? 0) + 1);
  const why = [...reasons].map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
  return (
    `${plan.replicas} replicas, ${plan.schedules} ${plan.aligned ? 'aligned' : 'spread'}, kills ${plan.kills} ` +
    `(${r.kills}): ran ${r.ran}/${r.expected} (${((100 * r.ran) / Math.max(1, r.expected)).toFixed(1)} %), ` +
    `twice ${r.twice.length}, not run: ${why}; start late p50 ${r.lateP50} p99 ${r.lateP99} max ${r.lateMax} ms; ` +
    `first due after start ${r.firstLateMs} ms late (enqueued ${r.firstAddedLateMs} ms late)`
  );
}
