import type { Redis, Result } from 'ioredis';
import type { Keys } from './keys.js';
import { ACQUIRE_SLOT, COUNT_LIVE, LEAVE_GROUP_QUEUE, RENEW, TRY_GROUP } from './lease-scripts.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    bullbeatAcquireSlot(
      set: string,
      owedSet: string,
      id: string,
      ttlMs: number,
      maxInstances: number,
      coalesce: string,
      owedId: string,
      owedTtlMs: number,
    ): Result<[number, number], Context>;
    bullbeatRenewLease(set: string, id: string, ttlMs: number): Result<number, Context>;
    bullbeatTryGroup(
      holder: string,
      queue: string,
      waiters: string,
      ticket: string,
      id: string,
      ttlMs: number,
    ): Result<number, Context>;
    bullbeatLeaveGroupQueue(queue: string, waiters: string, id: string): Result<number, Context>;
    bullbeatCountLive(set: string): Result<number, Context>;
  }
}

/** The outcome of asking for a run slot. */
export interface SlotGrant {
  granted: boolean;
  /** Live runs of the schedule before this one (lapsed leases not counted). */
  live: number;
}

/**
 * Leases in Redis: run slots per schedule (maxInstances / coalesce across the cluster) and exclusion
 * groups (one holder, a fair line of waiters). Each call is one atomic script; every expiry is judged
 * by Redis `TIME`.
 */
export class LeaseStore {
  constructor(
    private readonly redis: Redis,
    /** How long a lease lives unless renewed (ms). */
    readonly ttlMs: number,
  ) {
    const r = redis as Partial<Redis>;
    if (typeof r.bullbeatAcquireSlot !== 'function') {
      redis.defineCommand('bullbeatAcquireSlot', { numberOfKeys: 2, lua: ACQUIRE_SLOT });
      redis.defineCommand('bullbeatRenewLease', { numberOfKeys: 1, lua: RENEW });
      redis.defineCommand('bullbeatTryGroup', { numberOfKeys: 4, lua: TRY_GROUP });
      redis.defineCommand('bullbeatLeaveGroupQueue', { numberOfKeys: 2, lua: LEAVE_GROUP_QUEUE });
      redis.defineCommand('bullbeatCountLive', { numberOfKeys: 1, lua: COUNT_LIVE });
    }
  }

  /**
   * Take a run slot of `scheduleId` under `leaseId`, unless the schedule's overlap rules forbid it.
   * With `owedId` (the job id of a retry owed its run: an attempt after one that started), the slot
   * is asked for on that retry's behalf: refused, the retry claims the next free slot for
   * `ttlMs` (fresh occurrences are refused while it is claimed); granted, the claim is dropped.
   */
  async acquireSlot(
    keys: Keys,
    scheduleId: string,
    leaseId: string,
    maxInstances: number,
    coalesce: boolean,
    owedId?: string,
  ): Promise<SlotGrant> {
    const [granted, live] = await this.redis.bullbeatAcquireSlot(
      keys.lease(scheduleId),
      keys.leaseOwed(scheduleId),
      leaseId,
      this.ttlMs,
      maxInstances,
      coalesce ? '1' : '0',
      owedId ?? '',
      this.ttlMs,
    );
    return { granted: granted === 1, live };
  }

  /** Join the line of `group` (once) and take the group if it is free and this lease is first. */
  async tryGroup(keys: Keys, group: string, leaseId: string): Promise<boolean> {
    const taken = await this.redis.bullbeatTryGroup(
      keys.group(group),
      keys.groupQueue(group),
      keys.groupWaiters(group),
      keys.groupTicket(group),
      leaseId,
      this.ttlMs,
    );
    return taken === 1;
  }

  /** Leave the line of `group` (after giving up waiting). */
  async leaveGroupQueue(keys: Keys, group: string, leaseId: string): Promise<void> {
    await this.redis.bullbeatLeaveGroupQueue(keys.groupQueue(group), keys.groupWaiters(group), leaseId);
  }

  /** Extend a lease held in `set`; false when it had lapsed and was taken away. */
  async renew(set: string, leaseId: string): Promise<boolean> {
    return (await this.redis.bullbeatRenewLease(set, leaseId, this.ttlMs)) === 1;
  }

  /** Give a lease back. */
  async release(set: string, leaseId: string): Promise<void> {
    await this.redis.zrem(set, leaseId);
  }

  /** How many runs of `scheduleId` hold a live lease right now, anywhere in the cluster. */
  async activeInstances(keys: Keys, scheduleId: string): Promise<number> {
    return this.redis.bullbeatCountLive(keys.lease(scheduleId));
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
  const [seconds, micros] = await redis.time();
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
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
