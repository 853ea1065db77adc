import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { decodeHandles, FleetMembers, openRedis } from '../store/index.js';
import {
  type FleetMember,
  type FleetMemberInfo,
  type FleetSnapshot,
  handledByMember,
  versionsOf,
} from './fleet-member.js';
import type { FleetMembership, JoinFleetOptions } from './fleet-options.js';

/** Beats missed before a member counts as dead. */
export const MISSED_BEATS = 3;
/** Dead members are shown this long after their last beat, then pruned (ms). */
export const DEAD_KEPT_MS = 3_600_000;

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
  const redis = openRedis({ ...options.connection, maxRetriesPerRequest: 1, lazyConnect: false });
  redis.on('error', () => undefined);
  const fleet = new FleetMembers(redis, options.prefix);
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
    const now = await fleet.now();
    if (info.startedAt === 0) info.startedAt = now;
    info.lastBeat = now;
    await fleet.beat(info, now + MISSED_BEATS * heartbeatMs);
    await prune(fleet, now);
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
      await fleet.remove(id).catch(() => undefined);
      await redis.quit().catch(() => redis.disconnect());
    })();
    return leaving;
  };
  return { id, problem: () => problem, leave, [Symbol.asyncDispose]: leave };
}

/** Forget members dead for longer than `DEAD_KEPT_MS`. */
async function prune(fleet: FleetMembers, now: number): Promise<void> {
  await fleet.remove(...(await fleet.deadSince(now - DEAD_KEPT_MS, 100)));
}

/** Reads the fleet (the dashboard, `bullbeat status`, the gauges). Takes a client it does not own. */
export class FleetReader {
  private readonly fleet: FleetMembers;

  constructor(redis: Redis, prefix: string) {
    this.fleet = new FleetMembers(redis, prefix);
  }

  async snapshot(): Promise<FleetSnapshot> {
    const { now, rows } = await this.fleet.read();
    const members: FleetMember[] = rows.map(({ info, deadline }) => ({ ...info, alive: deadline > now }));
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
    const versions = versionsOf(members);
    return {
      now,
      members,
      replicas: alive('scheduler'),
      workers: alive('worker'),
      served: Object.fromEntries(Object.entries(served).map(([q, s]) => [q, [...s].sort()])),
      versions,
      mixedVersions: Object.keys(versions).length > 1,
    };
  }
}
