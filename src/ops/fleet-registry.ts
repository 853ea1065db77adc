import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { openRedis } from '../store/redis-target.js';
import { type FleetKeys, fleetKeys } from './fleet-keys.js';
import {
  decodeHandles,
  type FleetMember,
  type FleetMemberInfo,
  type FleetSnapshot,
  handledByMember,
} from './fleet-member.js';
import type { FleetMembership, JoinFleetOptions } from './fleet-options.js';

/** Beats missed before a member counts as dead. */
export const MISSED_BEATS = 3;
/** Dead members are shown this long after their last beat, then pruned (ms). */
export const DEAD_KEPT_MS = 3_600_000;

const redisNow = async (redis: Redis): Promise<number> => {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
};

/**
 * Register this process in the deployment's fleet and keep it there with a heartbeat (Redis time),
 * so that the dashboard's fleet page, `bullbeat_replicas` / `bullbeat_workers` and `bullbeat status`
 * see it. A process killed without `leave()` counts as dead three heartbeats after its last one.
 * Resolves once the first beat is written.
 */
export async function joinFleet(options: JoinFleetOptions): Promise<FleetMembership> {
  const heartbeatMs = options.heartbeatMs ?? 5000;
  if (!Number.isInteger(heartbeatMs) || heartbeatMs < 50) {
    throw new RangeError(`joinFleet: heartbeatMs must be a whole number of ms >= 50 (got ${heartbeatMs})`);
  }
  const k = fleetKeys(options.prefix);
  const redis = openRedis({ ...options.connection, maxRetriesPerRequest: 1, lazyConnect: false });
  redis.on('error', () => undefined);
  const host = hostname();
  const id = `${options.role}:${host}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const info: FleetMemberInfo = {
    id,
    role: options.role,
    host,
    pid: process.pid,
    version: options.version ?? 'unknown',
    queues: [...(options.queues ?? [])].sort(),
    handlers: [...(options.handlers ?? [])].sort(),
    ...(options.handles && { handles: decodeHandles(options.handles) ?? {} }),
    startedAt: 0,
    lastBeat: 0,
    heartbeatMs,
  };
  const beat = async () => {
    const now = await redisNow(redis);
    if (info.startedAt === 0) info.startedAt = now;
    info.lastBeat = now;
    await redis
      .multi()
      .hset(k.members, id, JSON.stringify(info))
      .zadd(k.beats, now + MISSED_BEATS * heartbeatMs, id)
      .exec();
    await prune(redis, k, now);
  };
  try {
    await beat();
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  let beating: Promise<void> | undefined;
  let problem: string | null = null;
  const timer = setInterval(() => {
    beating ??= beat()
      .then(() => {
        problem = null;
      })
      .catch((err: unknown) => {
        problem = `fleet heartbeat failed: ${(err as Error).message ?? String(err)}`;
        options.logger?.warn({ err, member: id }, 'bullbeat: fleet heartbeat failed');
      })
      .finally(() => {
        beating = undefined;
      });
  }, heartbeatMs);
  timer.unref();
  let leaving: Promise<void> | undefined;
  const leave = () => {
    leaving ??= (async () => {
      clearInterval(timer);
      await beating;
      await redis
        .multi()
        .hdel(k.members, id)
        .zrem(k.beats, id)
        .exec()
        .catch(() => undefined);
      await redis.quit().catch(() => redis.disconnect());
    })();
    return leaving;
  };
  return { id, problem: () => problem, leave, [Symbol.asyncDispose]: leave };
}

/** Forget members dead for longer than `DEAD_KEPT_MS`. */
async function prune(redis: Redis, k: FleetKeys, now: number): Promise<void> {
  const gone = await redis.zrangebyscore(k.beats, '-inf', now - DEAD_KEPT_MS, 'LIMIT', 0, 100);
  if (gone.length > 0) {
    await redis
      .multi()
      .hdel(k.members, ...gone)
      .zrem(k.beats, ...gone)
      .exec();
  }
}

/** Reads the fleet (the dashboard, `bullbeat status`, the gauges). Takes a client it does not own. */
export class FleetReader {
  private readonly keys: FleetKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = fleetKeys(prefix);
  }

  async snapshot(): Promise<FleetSnapshot> {
    const [now, rows, beats] = await Promise.all([
      redisNow(this.redis),
      this.redis.hgetall(this.keys.members),
      this.redis.zrange(this.keys.beats, '0', '-1', 'WITHSCORES'),
    ]);
    const deadline = new Map<string, number>();
    for (let i = 0; i + 1 < beats.length; i += 2) deadline.set(beats[i] as string, Number(beats[i + 1]));
    const members: FleetMember[] = [];
    for (const [id, json] of Object.entries(rows)) {
      const info = decodeMember(id, json);
      if (info) members.push({ ...info, alive: (deadline.get(id) ?? 0) > now });
    }
    members.sort(
      (a, b) => Number(b.alive) - Number(a.alive) || a.role.localeCompare(b.role) || a.id.localeCompare(b.id),
    );
    const served: Record<string, Set<string>> = {};
    for (const m of members) {
      if (!m.alive || m.role !== 'worker') continue;
      for (const [q, names] of Object.entries(handledByMember(m))) {
        served[q] ??= new Set();
        for (const h of names) served[q].add(h);
      }
    }
    const alive = (role: string) => members.filter((m) => m.alive && m.role === role).length;
    return {
      now,
      members,
      replicas: alive('scheduler'),
      workers: alive('worker'),
      served: Object.fromEntries(Object.entries(served).map(([q, s]) => [q, [...s].sort()])),
    };
  }
}

/** A stored member, or null when the row cannot be read (it is then ignored, not thrown). */
function decodeMember(id: string, json: string): FleetMemberInfo | null {
  try {
    const v = JSON.parse(json) as Partial<FleetMemberInfo>;
    if (v.role !== 'scheduler' && v.role !== 'worker') return null;
    const strings = (x: unknown) =>
      Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : [];
    const handles = decodeHandles(v.handles);
    return {
      id,
      role: v.role,
      host: String(v.host ?? ''),
      pid: Number(v.pid ?? 0),
      version: String(v.version ?? ''),
      queues: strings(v.queues),
      handlers: strings(v.handlers),
      ...(handles && { handles }),
      startedAt: Number(v.startedAt ?? 0),
      lastBeat: Number(v.lastBeat ?? 0),
      heartbeatMs: Number(v.heartbeatMs ?? 0),
    };
  } catch {
    return null;
  }
}
