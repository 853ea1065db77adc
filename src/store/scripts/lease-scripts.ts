import type { Redis } from 'ioredis';
import type { Keys } from '../keys/index.js';
import { codeName, RunLease, yes } from './script-codes.js';
import { ScriptCaller, scriptArgs } from './script-layout.js';
import { LEAVE_GROUP_QUEUE, RENEW_LEASE, RENEW_RUN, TRY_GROUP } from './script-layouts.js';

/** The leases' scripts: a run's slot lease and an exclusion group's (see `ScheduleScripts`). */
export class LeaseScripts {
  readonly #caller: ScriptCaller;

  constructor(redis: Redis) {
    this.#caller = new ScriptCaller(redis);
  }

  /** `renew-lease-1`: extend a lease held in `set` (an exclusion group); false when it is gone. */
  async renewLease(a: { set: string; leaseId: string; ttlMs: number }): Promise<boolean> {
    const args = scriptArgs(
      RENEW_LEASE,
      { lease: a.set },
      {
        leaseId: a.leaseId,
        ttl: a.ttlMs,
        clockMs: this.#caller.clockMs(RENEW_LEASE),
      },
    );
    return yes(RENEW_LEASE, await this.#caller.run(RENEW_LEASE, args));
  }

  /** `renew-run-2`: extend a run's slot lease, unless it was asked to stop. */
  async renewRun(k: Keys, a: { scheduleId: string; leaseId: string; ttlMs: number }): Promise<RunLease> {
    const p = k.of(a.scheduleId);
    const keys = { lease: p.lease(a.scheduleId), cancelled: p.cancelled(a.scheduleId) };
    const args = scriptArgs(RENEW_RUN, keys, {
      leaseId: a.leaseId,
      ttl: a.ttlMs,
      clockMs: this.#caller.clockMs(RENEW_RUN),
    });
    return codeName(RENEW_RUN, RunLease, await this.#caller.run(RENEW_RUN, args));
  }

  /** `try-group-4`: wait in line for an exclusion group, or take it: the Redis TIME when taken. */
  async tryGroup(
    k: Keys,
    a: { group: string; leaseId: string; ttlMs: number; max?: number; overflow?: string },
  ): Promise<number | undefined> {
    const taken = await this.takeGroup(k, a);
    return taken > 0 ? taken : undefined;
  }

  /** `try-group-4` with a group's `max` and overflow: the Redis TIME taken at, 0 waiting, -1 refused. */
  async takeGroup(
    k: Keys,
    a: { group: string; leaseId: string; ttlMs: number; max?: number; overflow?: string },
  ): Promise<number> {
    const g = a.group;
    const keys = {
      group: k.group(g),
      groupQueue: k.groupQueue(g),
      groupWaiters: k.groupWaiters(g),
      groupTicket: k.groupTicket(g),
    };
    const clockMs = this.#caller.clockMs(TRY_GROUP);
    // a test's clock is the last slot: max and overflow before it are then sent as '' (their defaults)
    const none = clockMs === undefined ? undefined : '';
    const argv = {
      leaseId: a.leaseId,
      ttl: a.ttlMs,
      max: a.max ?? none,
      overflow: a.overflow ?? none,
      clockMs,
    };
    return Number(await this.#caller.run(TRY_GROUP, scriptArgs(TRY_GROUP, keys, argv)));
  }

  /** `leave-group-queue-2`: leave an exclusion group's line. */
  async leaveGroupQueue(k: Keys, a: { group: string; leaseId: string }): Promise<void> {
    const keys = { groupQueue: k.groupQueue(a.group), groupWaiters: k.groupWaiters(a.group) };
    await this.#caller.run(LEAVE_GROUP_QUEUE, scriptArgs(LEAVE_GROUP_QUEUE, keys, { leaseId: a.leaseId }));
  }
}
