import type { Redis } from 'ioredis';
import type { AuditActor } from './audit-entry.js';
import { type AuditConfig, auditArgs, DEFAULT_AUDIT } from './audit-trail.js';
import { encodeClaimRow } from './claim-row.js';
import type { Keys } from './keys.js';
import { PartitionClaims, type PartitionClaimsOptions } from './partition-claims.js';
import { counted, enqueuedFacts, patchArgs } from './record-form.js';
import { encodeDefinition, type ScheduleDefinition } from './schedule-definition.js';
import { byPartition, readSchedule, readSchedules } from './schedule-rows.js';
import { parseState, type ScheduleState, type StateCode } from './schedule-state.js';
import type {
  Claim,
  ClaimResult,
  Completion,
  FleetMember,
  ScheduleErrorInfo,
  StoredSchedule,
  UpsertOptions,
  UpsertResult,
} from './schedule-store-types.js';
import { defineStoreScripts } from './scripts.js';

/** The schedules in Redis: definitions, due times, claims and states, each change one Lua script. */
export class ScheduleStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    /** Records kept per schedule. */
    private readonly historyLimit: number,
    /** The audit trails' bounds. */
    readonly audit: AuditConfig = DEFAULT_AUDIT,
  ) {
    defineStoreScripts(redis);
  }

  /** Redis TIME in epoch ms. */
  async time(): Promise<number> {
    const [s, us] = await this.redis.time();
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  }

  /**
   * Create or update a definition. `next` is its first due time if it is new or its timing changed.
   * `claimed:<fireAt>` means nothing was written: the schedule is claimed at or after `next`; call
   * again with a time after that occurrence. `missing`: an update (`ifCreatedAt`) found its schedule gone.
   */
  upsert(
    def: ScheduleDefinition,
    fingerprint: string,
    next: number | null,
    now: number,
    options: UpsertOptions = {},
  ): Promise<UpsertResult> {
    const k = this.keys.of(def.id);
    return this.redis.bbUpsert(
      k.schedules,
      k.due,
      k.inflight,
      k.state,
      k.resched,
      k.completed,
      k.claim,
      k.audit(def.id),
      def.id,
      encodeDefinition(def),
      fingerprint,
      next === null ? '' : next,
      now,
      def.source === 'code' ? 'c' : 'r',
      options.keepCompleted ? '1' : '',
      options.ifCreatedAt === undefined ? '' : options.ifCreatedAt,
      ...auditArgs(this.audit, options.by),
    ) as Promise<UpsertResult>;
  }

  /**
   * Claim what is due now or within `aheadMs` (by Redis TIME), lapsed claims first. On the store of a
   * whole deployment of P > 1 partitions, one cycle over every partition with something due (see
   * `claimEveryPartition`).
   */
  async claim(
    batch: number,
    leaseMs: number,
    token: string,
    aheadMs = 0,
    fleet?: FleetMember,
  ): Promise<ClaimResult> {
    const k = this.keys;
    if (k.index < 0) {
      if (!this.fanOut) throw new Error('ScheduleStore.claim: call claimEveryPartition() first');
      return this.fanOut.claim(batch, leaseMs, token, aheadMs);
    }
    const share = fleet ? [fleet.replica, fleet.aheadMs, fleet.liveMs, fleet.recent, fleet.imminentMs] : [];
    const raw = await this.redis.bbClaim(
      k.due,
      k.inflight,
      k.claim,
      k.schedules,
      k.state,
      k.totals,
      batch,
      leaseMs,
      token,
      aheadMs,
      ...share,
    );
    const fleetOf = fleet ? raw.splice(raw.length - 2, 2).map(Number) : undefined;
    const claims: Claim[] = [];
    for (let i = 3; i + 4 < raw.length; i += 5) {
      const at = String(raw[i + 1]);
      claims.push({
        id: String(raw[i]),
        fireAt: Number(at),
        claim: encodeClaimRow({ fireAt: Number(at), token }),
        reclaimed: Number(raw[i + 2]) === 1,
        defJSON: String(raw[i + 3]),
        state: parseState(String(raw[i + 4])),
      });
    }
    const num = (v: unknown) => (v === '' || v === undefined ? null : Number(v));
    const res: ClaimResult = { now: Number(raw[0]), nextDue: num(raw[1]), nextLease: num(raw[2]), claims };
    if (fleetOf) res.fleet = { size: fleetOf[0]!, aheadMs: fleetOf[1]! };
    return res;
  }

  /**
   * Claims of this (whole-deployment) store go over every partition in one cycle, claiming each
   * partition that has something due (see partition-claims.ts). One per store: its fire loop's.
   */
  claimEveryPartition(options: PartitionClaimsOptions): PartitionClaims {
    this.fanOut ??= new PartitionClaims(
      this.keys.all().map((_, i) => this.partition(i)),
      options,
    );
    return this.fanOut;
  }

  private fanOut: PartitionClaims | undefined;

  /** Complete claims made with `token` (one claim call's): one script per partition touched. */
  async complete(completions: readonly Completion[], now: number, token: string): Promise<number> {
    if (completions.length === 0) return 0;
    const k = this.keys.of(completions[0]!.claim.id);
    if (completions.some((c) => this.keys.partitionOf(c.claim.id) !== k.index)) {
      // one script per partition (each touches one slot)
      const groups = byPartition(this.keys, completions, (c) => c.claim.id);
      const done = await Promise.all([...groups.values()].map((g) => this.completeOne(g, now, token)));
      this.fanOut?.completed(completions, (id) => this.keys.partitionOf(id));
      return done.reduce((a, b) => a + b, 0);
    }
    const n = await this.completeOne(completions, now, token);
    this.fanOut?.completed(completions, (id) => this.keys.partitionOf(id));
    return n;
  }

  /**
   * Extend the leases of the claims `ids` still held by `token` to `leaseMs` from now (Redis TIME):
   * one script per partition touched. Answers how many were extended (a claim completed or taken over
   * meanwhile is not).
   */
  async renewClaims(ids: readonly string[], token: string, leaseMs: number): Promise<number> {
    if (ids.length === 0) return 0;
    const groups = byPartition(this.keys, ids, (id) => id);
    const done = await Promise.all(
      [...groups.values()].map((part) => {
        const k = this.keys.of(part[0]!);
        return this.redis.bbRenewClaims(k.inflight, k.claim, leaseMs, token, ...part);
      }),
    );
    return done.reduce((a, b) => a + b, 0);
  }

  /** Complete claims of one partition (one complete-n script). */
  private completeOne(completions: readonly Completion[], now: number, token: string): Promise<number> {
    const k = this.keys.of(completions[0]!.claim.id);
    // numkeys, the 7 shared keys, each item's own keys, then the arguments (see complete-n.lua)
    const args: (string | number)[] = [
      7 + 3 * completions.length,
      k.due,
      k.inflight,
      k.claim,
      k.state,
      k.resched,
      k.completed,
      k.totals,
    ];
    for (const c of completions) args.push(k.runs(c.claim.id), k.runIndex(c.claim.id), k.counts(c.claim.id));
    args.push(this.historyLimit, now, token);
    for (const c of completions) {
      args.push(
        c.claim.id,
        c.claim.fireAt,
        c.next === null ? '-1' : c.next,
        c.missedUncounted,
        c.coalesced ?? 0,
      );
      args.push(...counted(c.enqueued === undefined ? [] : enqueuedFacts(c.enqueued, now)));
      args.push(c.records.length);
      for (const r of c.records)
        args.push(r.field, r.fireAt, r.counter ?? '', ...counted(patchArgs(r.patch).set));
    }
    return this.redis.bbComplete(...args);
  }

  /**
   * Move a schedule between statuses: 1 done, 0 no such schedule, -1 not in one of `from`, -2 nothing
   * written: it is claimed at or after `next` (re-read it and resume after the claimed occurrence).
   */
  setStatus(
    id: string,
    from: string,
    to: StateCode,
    next: number | null = null,
    entry: { op: 'orphan' | 'resume'; by?: AuditActor } = { op: to === 'a' ? 'resume' : 'orphan' },
  ): Promise<number> {
    const k = this.keys.of(id);
    const at = next === null ? '' : next;
    const [limit, actor, source] = auditArgs(this.audit, entry.by);
    return this.redis.bbSetStatus(
      k.state,
      k.due,
      k.inflight,
      k.resched,
      k.claim,
      k.audit(id),
      id,
      from,
      to,
      at,
      limit,
      actor,
      source,
      entry.op,
    );
  }

  /** Delete a schedule with its history (only if its status is `onlyIf`, when given). */
  async remove(id: string, onlyIf: StateCode | '' = '', by?: AuditActor): Promise<boolean> {
    const k = this.keys.of(id);
    const n = await this.redis.bbRemove(
      k.schedules,
      k.due,
      k.inflight,
      k.claim,
      k.state,
      k.resched,
      k.completed,
      k.runs(id),
      k.runIndex(id),
      k.counts(id),
      k.errors,
      k.totals,
      k.audit(id),
      id,
      onlyIf,
      ...auditArgs(this.audit, by),
      this.audit.retentionMs,
    );
    return n === 1;
  }

  /**
   * Mark a schedule errored (see `lua/mark-errored-8.lua`): from its claim (`claim` = `fireAt|token`, only if
   * still ours), or at definition (`claim` = ''). True if it is now errored.
   */
  async markErrored(
    id: string,
    claim: string,
    error: ScheduleErrorInfo,
    now: number,
    by?: AuditActor,
  ): Promise<boolean> {
    const k = this.keys.of(id);
    const n = await this.redis.bbMarkErrored(
      k.state,
      k.due,
      k.inflight,
      k.claim,
      k.resched,
      k.completed,
      k.errors,
      k.totals,
      k.audit(id),
      id,
      claim,
      JSON.stringify(error),
      now,
      ...auditArgs(this.audit, by),
      error.reason,
      error.fireAt ?? '',
    );
    return n === 1;
  }

  /** Clear an errored schedule: active from `next` (or completed when null). True if it was errored. */
  async clearError(id: string, next: number | null, now: number, by?: AuditActor): Promise<boolean> {
    const k = this.keys.of(id);
    const at = next === null ? '' : next;
    const n = await this.redis.bbClearError(
      ...[k.state, k.due, k.inflight, k.completed, k.errors, k.audit(id), id, at, now],
      ...auditArgs(this.audit, by),
    );
    return n === 1;
  }

  /** One schedule (a bad row decoded as errored), or null; with the fire time of its occurrence claimed now. */
  get(id: string): Promise<(StoredSchedule & { claimedFireAt: number | null }) | null> {
    return readSchedule(this.redis, this.keys, id);
  }

  /** Many schedules by id, in order (missing ones omitted; bad rows decoded as errored). */
  getMany(ids: readonly string[]): Promise<StoredSchedule[]> {
    return readSchedules(this.redis, this.keys, ids);
  }

  /** The store of one partition (itself with one partition): what one fire loop claims from. */
  partition(i: number): ScheduleStore {
    if (this.keys.partitions === 1) return this;
    this.parts ??= this.keys
      .all()
      .map((k) => new ScheduleStore(this.redis, k, this.historyLimit, this.audit));
    const p = this.parts[i];
    if (!p) throw new RangeError(`ScheduleStore.partition: no partition ${i}`);
    return p;
  }

  private parts: ScheduleStore[] | undefined;

  /** Every schedule's state (id → state). */
  async states(): Promise<Map<string, ScheduleState>> {
    const raws = await Promise.all(this.keys.all().map((k) => this.redis.hgetall(k.state)));
    const out = new Map<string, ScheduleState>();
    for (const raw of raws) {
      for (const [id, v] of Object.entries(raw)) {
        const s = parseState(v);
        if (s) out.set(id, s);
      }
    }
    return out;
  }

  /** Look at a completed schedule again one retention period from `now` (it is kept meanwhile). */
  async keepCompleted(id: string, now: number): Promise<void> {
    await this.redis.zadd(this.keys.of(id).completed, 'XX', now, id);
  }

  /** Completed schedules older than `before` (up to `limit`). */
  async completedBefore(before: number, limit: number): Promise<string[]> {
    const lists = await Promise.all(
      this.keys.all().map((k) => this.redis.zrangebyscore(k.completed, '-inf', before, 'LIMIT', 0, limit)),
    );
    return lists.flat().slice(0, limit);
  }
}
