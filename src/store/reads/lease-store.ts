import type { Redis } from 'ioredis';
import { redisTime } from '../connection/index.js';
import type { Keys } from '../keys/index.js';
import { LeaseScripts } from '../scripts/index.js';

/**
 * Leases in Redis: exclusion groups (one holder, a fair line of waiters), and renewing or giving back a
 * lease (run slots are taken by `RunSlots`). Each call is one atomic script; every expiry is judged by
 * Redis `TIME`.
 */
export class LeaseStore {
  private readonly scripts: LeaseScripts;

  constructor(
    private readonly redis: Redis,
    /** How long a lease lives unless renewed (ms). */
    readonly ttlMs: number,
  ) {
    this.scripts = new LeaseScripts(redis);
  }

  /** Join the line of `group` (once) and take the group if it is free and this lease is first. */
  async tryGroup(keys: Keys, group: string, leaseId: string): Promise<boolean> {
    return (await this.scripts.tryGroup(keys, { group, leaseId, ttlMs: this.ttlMs })) !== undefined;
  }

  /**
   * Take a place in a group (`group` option: up to `max` holders), or wait in its line, by `overflow`
   * (`try-group-4`): the Redis TIME it was taken at, `'waiting'` (in line), or `'refused'` (full, and
   * this run may not wait). `name` is the group's lease set name (`groupLeaseName`).
   */
  async takeGroupPlace(
    keys: Keys,
    name: string,
    leaseId: string,
    max: number,
    overflow: 'skip' | 'bufferOne' | 'bufferAll',
  ): Promise<number | 'waiting' | 'refused'> {
    const line = overflow === 'bufferAll' ? 'line' : overflow;
    const at = await this.scripts.takeGroup(keys, {
      group: name,
      leaseId,
      ttlMs: this.ttlMs,
      max,
      overflow: line,
    });
    return at > 0 ? at : at === 0 ? 'waiting' : 'refused';
  }

  /** Leave the line of `group` (after giving up waiting). */
  async leaveGroupQueue(keys: Keys, group: string, leaseId: string): Promise<void> {
    await this.scripts.leaveGroupQueue(keys, { group, leaseId });
  }

  /** Extend a lease held in `set`; false when it had lapsed and was taken away. */
  async renew(set: string, leaseId: string): Promise<boolean> {
    return this.scripts.renewLease({ set, leaseId, ttlMs: this.ttlMs });
  }

  /** Give a lease back. */
  async release(set: string, leaseId: string): Promise<void> {
    await this.redis.zrem(set, leaseId);
  }
}

/**
 * Runs going on right now, per schedule, anywhere in the cluster (live leases, judged by Redis
 * `TIME`): for `toJSON()`'s active instances and dashboards. One round trip for any number of ids.
 */
export async function activeRuns(
  redis: Redis,
  keys: Keys,
  scheduleIds: readonly string[],
): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  if (scheduleIds.length === 0) return result;
  const now = await redisTime(redis);
  const pipeline = redis.pipeline();
  for (const id of scheduleIds) pipeline.zcount(keys.lease(id), `(${now}`, '+inf');
  const replies = (await pipeline.exec()) ?? [];
  scheduleIds.forEach((id, i) => {
    const [error, count] = replies[i] ?? [null, 0];
    if (error) throw error;
    result.set(id, Number(count));
  });
  return result;
}

/**
 * The slot lease of one job's run (lease ids are `<worker>:<job id>:<random>`): `live` while one of its
 * leases is renewed (judged by Redis `TIME`), `lapsed` when its leases stopped being renewed (its
 * worker died or stalled), `none` when the set holds none (never taken: `allowAll`; or dropped after
 * lapsing). For `schedule:why`.
 */
export async function runLease(
  redis: Redis,
  keys: Keys,
  scheduleId: string,
  jobId: string,
): Promise<'live' | 'lapsed' | 'none'> {
  const [now, members] = await Promise.all([
    redisTime(redis),
    redis.zrange(keys.lease(scheduleId), '0', '-1', 'WITHSCORES'),
  ]);
  let found: 'lapsed' | 'none' = 'none';
  for (let i = 0; i + 1 < members.length; i += 2) {
    if (!members[i]!.includes(`:${jobId}:`)) continue;
    if (Number(members[i + 1]) > now) return 'live';
    found = 'lapsed';
  }
  return found;
}

/** A group's occupancy now (judged by Redis `TIME`): live holders and live waiters in its line. */
export async function groupOccupancy(
  redis: Redis,
  keys: Keys,
  name: string,
): Promise<{ running: number; waiting: number }> {
  const now = await redisTime(redis);
  const [running, waiting] = await Promise.all([
    redis.zcount(keys.group(name), `(${now}`, '+inf'),
    redis.zcount(keys.groupWaiters(name), `(${now}`, '+inf'),
  ]);
  return { running: Number(running), waiting: Number(waiting) };
}
