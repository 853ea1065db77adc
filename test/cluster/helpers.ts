import { randomUUID } from 'node:crypto';
import { type Job, Queue, Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import pino from 'pino';
import type { SchedulerManagerOptions } from '../../src/scheduler/contract/scheduler-manager-options.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import {
  bullConnection,
  openRedis,
  queuePrefixFor,
  redisTarget,
} from '../../src/store/connection/redis-target.js';
import type { OccurrenceJobData } from '../../src/store/forms/job-payload.js';
import { keys } from '../../src/store/keys/keys.js';
import { DEFAULT_CLUSTER_PARTITIONS, keySlot } from '../../src/store/keys/partitions.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import type { LocalCluster } from '../setup/redis-cluster.js';

export const silent = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** A unique prefix and queue on the cluster, the managers made for it, and the cleanup. */
export function clusterEnv(cluster: LocalCluster, tag: string, partitions?: number) {
  const id = `${tag}-${randomUUID().slice(0, 8)}`;
  const prefix = `t-${id}`;
  const queue = `q-${id}`;
  const target = redisTarget({ cluster: cluster.nodesText });
  const redis = openRedis(target);
  const managers: SchedulerManager[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  return {
    prefix,
    queue,
    redis,
    target,
    keys: keys(prefix, partitions ?? DEFAULT_CLUSTER_PARTITIONS),
    manager(options: SchedulerManagerOptions = {}): SchedulerManager {
      const m = new SchedulerManager({
        prefix,
        defaultQueue: queue,
        connection: { cluster: cluster.nodesText },
        logger: silent,
        ...(partitions !== undefined && { partitions }),
        ...options,
      });
      managers.push(m);
      return m;
    },
    /**
     * A plain BullMQ consumer of the queue, told the prefix as the README says, that writes the
     * `running` record when it starts a job and counts runs per occurrence.
     */
    consumer(concurrency = 50) {
      const runs = new Map<string, number>();
      // what a stalled consumer looks like from inside (handlers entered and left, the worker's state)
      const handlers = { entered: 0, left: 0 };
      const history = new RunHistory(redis, keys(prefix, partitions ?? DEFAULT_CLUSTER_PARTITIONS));
      const connection = bullConnection(target) as Cluster;
      const worker = new Worker<OccurrenceJobData>(
        queue,
        async (job: Job<OccurrenceJobData>) => {
          handlers.entered++;
          try {
            const { scheduleId, fireAt } = job.data;
            await history.merge(scheduleId, fireAt, false, { outcome: 'running', startedAt: Date.now() });
            const k = `${scheduleId}@${fireAt}`;
            runs.set(k, (runs.get(k) ?? 0) + 1);
          } finally {
            handlers.left++;
          }
        },
        { connection, prefix: queuePrefixFor(target, queue)!, concurrency },
      );
      worker.on('error', () => undefined);
      const calls = watchCalls(worker);
      closers.push(async () => {
        await worker.close().catch(() => undefined);
        connection.disconnect();
      });
      /** The consumer's state, for a test's failure message. */
      const state = async () => {
        const q = new Queue(queue, { connection, prefix: queuePrefixFor(target, queue)! });
        const jobs = await q
          .getJobCounts('wait', 'active', 'delayed', 'completed', 'failed')
          .catch((err: Error) => err.message);
        await q.close().catch(() => undefined);
        return { ...handlers, running: worker.isRunning(), paused: worker.isPaused(), jobs, ...calls() };
      };
      return { runs, worker, state };
    },
    async cleanup(): Promise<void> {
      await Promise.all(managers.map((m) => m.stop().catch(() => undefined)));
      await Promise.all(managers.map((m) => m.close().catch(() => undefined)));
      for (const c of closers.splice(0)) await c();
      redis.disconnect();
    },
  };
}

/** bullbeat's keys of a prefix on each master (by port), and their bytes (MEMORY USAGE). */
export async function keysPerMaster(
  cluster: LocalCluster,
  prefix: string,
  withBytes = false,
): Promise<Map<number, { keys: number; bytes: number; slots: Set<number> }>> {
  const { masters } = await cluster.roles();
  const out = new Map<number, { keys: number; bytes: number; slots: Set<number> }>();
  for (const port of masters) {
    const r = openRedis({ host: '127.0.0.1', port });
    const entry = { keys: 0, bytes: 0, slots: new Set<number>() };
    let cursor = '0';
    do {
      const [next, batch] = await r.scan(cursor, 'MATCH', `{${prefix}*`, 'COUNT', 1000);
      cursor = next;
      entry.keys += batch.length;
      for (const k of batch) entry.slots.add(keySlot(k));
      if (withBytes) {
        const p = r.pipeline();
        for (const k of batch) p.memory('USAGE', k);
        for (const [, v] of (await p.exec()) ?? []) entry.bytes += Number(v ?? 0);
      }
    } while (cursor !== '0');
    out.set(port, entry);
    r.disconnect();
  }
  return out;
}

/** Redis TIME in ms (any node). */
export async function redisNow(redis: Redis): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** The port of the master serving `slot` (from CLUSTER NODES on a live master). */
export async function masterOfSlot(cluster: LocalCluster, slot: number): Promise<number> {
  const { masters } = await cluster.roles();
  const table = await cluster.cli(masters[0]!, 'cluster', 'nodes');
  for (const line of table.split('\n')) {
    const fields = line.split(' ');
    if (!fields[2]?.includes('master') || fields[2].includes('fail')) continue;
    const port = Number(fields[1]!.split(/[:@]/)[1]);
    for (const range of fields.slice(8)) {
      const [from, to = from] = range.split('-').map(Number);
      if (from !== undefined && to !== undefined && slot >= from && slot <= to) return port;
    }
  }
  throw new Error(`no master serves slot ${slot}:\n${table}`);
}

/**
 * What a stalled consumer waits on, for a test's failure message: the worker's fetch state, its calls
 * into its BullMQ backend and blocking connection still in flight (with their age), those that failed
 * last, and each client's status. Reads BullMQ 6.7's internals (`backend`, `blockingConnection`),
 * for diagnostics only: a name that is not there shows as absent.
 */
function watchCalls(worker: Worker): () => Record<string, unknown> {
  const inflight = new Map<number, { name: string; at: number }>();
  const failed: string[] = [];
  let seq = 0;
  const w = worker as unknown as {
    backend?: Record<string, unknown> & { blockingConnection?: Record<string, unknown> };
    waiting: unknown;
    drained: boolean;
    blockUntil: number;
  };
  const wrap = (target: Record<string, unknown> | undefined, owner: string, names: string[]) => {
    if (!target) return;
    for (const name of names) {
      const fn = target[name];
      if (typeof fn !== 'function') continue;
      target[name] = function (this: unknown, ...args: unknown[]) {
        const id = seq++;
        inflight.set(id, { name: `${owner}.${name}`, at: Date.now() });
        const out = (fn as (...a: unknown[]) => unknown).apply(this, args);
        if (!(out instanceof Promise)) {
          inflight.delete(id);
          return out;
        }
        return out.then(
          (v) => {
            inflight.delete(id);
            return v;
          },
          (err: unknown) => {
            inflight.delete(id);
            failed.push(`${owner}.${name}: ${err instanceof Error ? err.message : String(err)}`);
            if (failed.length > 5) failed.shift();
            throw err;
          },
        );
      };
    }
  };
  wrap(w.backend, 'backend', ['waitForJob', 'moveToActive', 'reconnectBlocking', 'moveToFinished']);
  wrap(w.backend?.blockingConnection, 'blocking', ['disconnect', 'reconnect']);
  const statusOf = (conn: unknown) => {
    const c = (conn as { _client?: { status?: string; nodes?: () => unknown[] } } | undefined)?._client;
    return c ? `${c.status} (${c.nodes?.().length ?? '?'} nodes)` : 'absent';
  };
  return () => {
    const now = Date.now();
    return {
      fetch: { waiting: w.waiting != null, drained: w.drained, blockUntil: w.blockUntil },
      inflight: [...inflight.values()].map((c) => `${c.name} ${now - c.at} ms`),
      failed: [...failed],
      clients: {
        main: statusOf(w.backend?.connection),
        blocking: statusOf(w.backend?.blockingConnection),
      },
    };
  };
}
