import type { Redis } from 'ioredis';
import type {
  AuditActor,
  ClaimResult,
  Completion,
  FleetMember,
  ScheduleDefinition,
  ScheduleErrorInfo,
  StoredSchedule,
  UpsertOptions,
  UpsertResult,
} from '../forms/index.js';
import {
  type AuditConfig,
  DEFAULT_AUDIT,
  parseState,
  type ScheduleState,
  type StateCode,
} from '../forms/index.js';
import { type Keys, occurrenceField } from '../keys/index.js';
import { byPartition, readSchedule, readSchedules, readStates } from '../reads/index.js';
import { BACKFILL_LEDGER_TTL_MS } from '../runs/index.js';
import type { CompleteAnswer, StatusChange } from '../scripts/index.js';
import { RunPathScripts, ScheduleScripts } from '../scripts/index.js';
import { PartitionClaims, type PartitionClaimsOptions } from './partition-claims.js';

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
    this.scripts = new ScheduleScripts(redis);
    this.runPath = new RunPathScripts(redis);
  }

  /** The schedules' scripts, and the run path's (a claim's completion). */
  private readonly scripts: ScheduleScripts;
  private readonly runPath: RunPathScripts;

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
    return this.scripts.upsert(this.keys, {
      definition: def,
      fingerprint,
      next,
      now,
      keepCompleted: options.keepCompleted === true,
      ifCreatedAt: options.ifCreatedAt,
      audit: this.audit,
      by: options.by,
    });
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
    return this.scripts.claim(k, { batch, leaseMs, token, aheadMs, fleet });
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

  /**
   * Complete claims made with `token` (one claim call's): one script per partition touched. Answers how
   * many were completed, and the claims no longer ours (lapsed and taken over, maybe by this replica).
   */
  async complete(completions: readonly Completion[], now: number, token: string): Promise<CompleteAnswer> {
    if (completions.length === 0) return { completed: 0, lost: [] };
    const k = this.keys.of(completions[0]!.claim.id);
    if (completions.some((c) => this.keys.partitionOf(c.claim.id) !== k.index)) {
      // one script per partition (each touches one slot)
      const groups = byPartition(this.keys, completions, (c) => c.claim.id);
      const done = await Promise.all([...groups.values()].map((g) => this.completeOne(g, now, token)));
      this.fanOut?.completed(completions, (id) => this.keys.partitionOf(id));
      return { completed: done.reduce((a, b) => a + b.completed, 0), lost: done.flatMap((d) => d.lost) };
    }
    const answer = await this.completeOne(completions, now, token);
    this.fanOut?.completed(completions, (id) => this.keys.partitionOf(id));
    return answer;
  }

  /**
   * Park schedules (`<due>:park`, read by `claim-6`): each entry (JSON, see park.ts) lets the claim
   * script coalesce the schedule's next occurrences while its previous job still waits. One `HSET` per
   * partition touched. One Redis only: the claim script reads the waiting job's hash, in BullMQ's keys.
   */
  async park(entries: readonly { id: string; entry: string }[]): Promise<void> {
    if (entries.length === 0) return;
    const groups = byPartition(this.keys, entries, (e) => e.id);
    const pipe = this.redis.pipeline();
    for (const part of groups.values()) {
      pipe.hset(`${this.keys.of(part[0]!.id).due}:park`, ...part.flatMap((e) => [e.id, e.entry]));
    }
    const failed = ((await pipe.exec()) ?? []).find(([err]) => err);
    if (failed) throw failed[0];
  }

  /**
   * Extend the leases of the claims `ids` still held by `token` to `leaseMs` from now (Redis TIME):
   * one script per partition touched. Answers the ids no longer held (completed or taken over
   * meanwhile): the others are this token's for `leaseMs` from the script's run.
   */
  async renewClaims(ids: readonly string[], token: string, leaseMs: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const groups = byPartition(this.keys, ids, (id) => id);
    const lost = await Promise.all(
      [...groups.values()].map((part) => this.scripts.renewClaims(this.keys, { ids: part, token, leaseMs })),
    );
    return lost.flat();
  }

  /**
   * The instant each occurrence fires at under the deployment's fire-rate cap (`fire-budget-1`), none
   * before Redis time + `leadMs`.
   */
  fireBudget(cap: number, leadMs: number, instants: readonly number[]): Promise<number[]> {
    return this.scripts.fireBudget(this.keys, cap, leadMs, instants);
  }

  /**
   * How far the fire-rate cap has handed out slots: the end (ms) of the latest second it gave an
   * occurrence, or 0 when none is given (no cap, or none for an hour: the budget expires). A job the cap
   * delayed is staged up to there, however far past its fire time. One `HKEYS` of the budget: a field
   * per second from a minute ago to the latest slot (a backlog of 1,000,000 at 100 a second: 10,000).
   */
  async fireBudgetReach(): Promise<number> {
    const seconds = await this.redis.hkeys(this.keys.fireBudget);
    let latest = -1;
    for (const s of seconds) latest = Math.max(latest, Number(s));
    return latest < 0 ? 0 : (latest + 1) * 1000;
  }

  /**
   * Where a schedule's staged jobs (delayed in BullMQ, not yet runnable) may be: the fire times of the
   * scheduled occurrences its records index from `from` (Redis ms) on; or `search` (its queue) while a
   * replica holds a claim of it (an add may have landed before its record), and where the history's
   * trim may have dropped an index entry since `from` (its oldest kept is later, and it holds
   * `historyLimit`: a schedule firing faster than its history is long). One pipelined read of the
   * schedule's partition.
   */
  async stagedCandidates(id: string, from: number): Promise<number[] | 'search'> {
    const k = this.keys.of(id);
    const idx = k.runIndex(id);
    const replies = (await this.redis
      .pipeline()
      .zrangebyscore(idx, from, '+inf')
      .hexists(k.claim, id)
      .zrange(idx, '0', '0', 'WITHSCORES')
      .zcard(idx)
      .exec()) as [Error | null, unknown][];
    for (const [err] of replies) if (err) throw err;
    const [indexed, claimed, oldest, count] = replies.map(([, v]) => v) as [
      string[],
      number,
      string[],
      number,
    ];
    if (claimed === 1) return 'search';
    if (count >= this.historyLimit && oldest[1] !== undefined && Number(oldest[1]) >= from) return 'search';
    // a scheduled occurrence's field is its fire time (a manual or backfill run's is not staged)
    return indexed.filter((f) => /^\d+$/.test(f)).map(Number);
  }

  /**
   * Before adding a scheduled occurrence whose claim this replica took over: true when an add of its
   * job started (or skipped) it already (add nothing); else it is entered in the schedule's start
   * marks, so that whichever add of its job starts first is the only one that runs (`retake-3`).
   */
  retake(scheduleId: string, fireAt: number): Promise<boolean> {
    return this.scripts.retake(this.keys, {
      scheduleId,
      field: occurrenceField(fireAt),
      keptMs: BACKFILL_LEDGER_TTL_MS,
    });
  }

  /** Complete claims of one partition (one complete-n script). */
  private completeOne(
    completions: readonly Completion[],
    now: number,
    token: string,
  ): Promise<CompleteAnswer> {
    return this.runPath.complete(this.keys, { completions, now, token, historyLimit: this.historyLimit });
  }

  /**
   * Move a schedule between statuses: `done`, `missing` (no such schedule), `wrongStatus` (not in one of
   * `from`), `claimed`: nothing written, it is claimed at or after `next` (re-read it and resume after
   * the claimed occurrence).
   */
  setStatus(
    id: string,
    from: string,
    to: StateCode,
    next: number | null = null,
    entry: { op: 'orphan' | 'resume'; by?: AuditActor } = { op: to === 'a' ? 'resume' : 'orphan' },
  ): Promise<StatusChange> {
    return this.scripts.setStatus(this.keys, {
      id,
      from,
      to,
      next,
      op: entry.op,
      audit: this.audit,
      by: entry.by,
    });
  }

  /** Delete a schedule with its history (only if its status is `onlyIf`, when given). */
  async remove(id: string, onlyIf: StateCode | '' = '', by?: AuditActor): Promise<boolean> {
    return this.scripts.remove(this.keys, { id, onlyIf, audit: this.audit, by });
  }

  /**
   * Mark a schedule errored (see `lua/mark-errored-9.lua`): from its claim (`claim` = `fireAt|token`, only if
   * still ours), or at definition (`claim` = ''). True if it is now errored.
   */
  async markErrored(
    id: string,
    claim: string,
    error: ScheduleErrorInfo,
    now: number,
    by?: AuditActor,
  ): Promise<boolean> {
    return this.scripts.markErrored(this.keys, { id, claim, error, now, audit: this.audit, by });
  }

  /** Clear an errored schedule: active from `next` (or completed when null). True if it was errored. */
  async clearError(id: string, next: number | null, now: number, by?: AuditActor): Promise<boolean> {
    return this.scripts.clearError(this.keys, { id, next, now, audit: this.audit, by });
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

  /** The states of these schedules (id → state; missing ones omitted), without their definitions. */
  statesOf(ids: readonly string[]): Promise<Map<string, ScheduleState>> {
    return readStates(this.redis, this.keys, ids);
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
