import type { Redis } from 'ioredis';
import { redisTime } from '../connection/index.js';
import { keys } from '../keys/index.js';

// The fleet registry's rows: `fleet` (member id → its description JSON) and `fleetBeats` (member id →
// the Redis time past which it counts as dead). What a beat means and who is alive is `src/ops`'s.

/** What a long-running process is in the fleet. */
export type FleetRole = 'scheduler' | 'worker';

/** A process's description in the fleet registry (stored as JSON). */
export interface FleetMemberInfo {
  /** Unique per process and role: `<role>:<host>:<pid>:<random>`. */
  id: string;
  role: FleetRole;
  host: string;
  pid: number;
  /** bullbeat's version. */
  version: string;
  /** Queues it consumes (workers; empty for scheduler replicas). */
  queues: string[];
  /** Job names it has a handler for (workers: the handlers of its jobs module). */
  handlers: string[];
  /**
   * Queue → the job names it handles there (workers): of `handlers`, those whose schedules send their
   * jobs to that queue. Absent in members written by bullbeat before it recorded them: then every
   * handler counts on every queue (see `handledByMember` in `src/ops`).
   */
  handles?: Record<string, string[]>;
  /** Epoch ms (Redis time) when it joined. */
  startedAt: number;
  /** Epoch ms (Redis time) of its last heartbeat. */
  lastBeat: number;
  /** How often it beats (ms); it counts as dead `3 × heartbeatMs` after its last beat. */
  heartbeatMs: number;
}

export function encodeFleetMember(info: FleetMemberInfo): string {
  return JSON.stringify(info);
}

/** A stored member, or null when the row cannot be read (it is then ignored, not thrown). */
export function decodeFleetMember(id: string, json: string): FleetMemberInfo | null {
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

/** A stored `handles` field, or undefined when it is absent or not a record of string lists. */
export function decodeHandles(x: unknown): Record<string, string[]> | undefined {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [q, names] of Object.entries(x)) {
    if (!Array.isArray(names)) return undefined;
    out[q] = names.filter((n): n is string => typeof n === 'string').sort();
  }
  return out;
}

/** A member as stored: its description and the Redis time past which it counts as dead (0: none). */
export interface FleetRow {
  info: FleetMemberInfo;
  deadline: number;
}

/** The fleet's rows in Redis, on a client the caller owns. */
export class FleetMembers {
  private readonly members: string;
  private readonly beats: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    const k = keys(prefix);
    this.members = k.fleet;
    this.beats = k.fleetBeats;
  }

  /** Redis time (ms). */
  now(): Promise<number> {
    return redisTime(this.redis);
  }

  /** Write a member's description and its deadline together. */
  async beat(info: FleetMemberInfo, deadline: number): Promise<void> {
    await this.redis
      .multi()
      .hset(this.members, info.id, encodeFleetMember(info))
      .zadd(this.beats, deadline, info.id)
      .exec();
  }

  /** Forget members. */
  async remove(...ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.redis
      .multi()
      .hdel(this.members, ...ids)
      .zrem(this.beats, ...ids)
      .exec();
  }

  /** Up to `limit` members whose deadline is at or before `at`. */
  deadSince(at: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.beats, '-inf', at, 'LIMIT', 0, limit);
  }

  /** Every readable member with its deadline, and the Redis time of the reading. */
  async read(): Promise<{ now: number; rows: FleetRow[] }> {
    const [now, stored, beats] = await Promise.all([
      redisTime(this.redis),
      this.redis.hgetall(this.members),
      this.redis.zrange(this.beats, '0', '-1', 'WITHSCORES'),
    ]);
    const deadline = new Map<string, number>();
    for (let i = 0; i + 1 < beats.length; i += 2) deadline.set(beats[i] as string, Number(beats[i + 1]));
    const rows: FleetRow[] = [];
    for (const [id, json] of Object.entries(stored)) {
      const info = decodeFleetMember(id, json);
      if (info) rows.push({ info, deadline: deadline.get(id) ?? 0 });
    }
    return { now, rows };
  }
}
