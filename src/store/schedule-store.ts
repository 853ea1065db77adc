import type { Redis } from 'ioredis';
import { instantProblem } from '../triggers/instant-bounds.js';
import type { Keys } from './keys.js';
import { PartitionClaims, type PartitionClaimsOptions } from './partition-claims.js';
import type { RunRecord } from './run-record.js';
import { decodeDefinition, encodeDefinition, type ScheduleDefinition } from './schedule-definition.js';
import { parseState, type ScheduleState, type StateCode } from './schedule-state.js';
import { defineStoreScripts } from './scripts.js';

/** Why a schedule is errored: it cannot be planned or enqueued (or its stored row cannot be read). */
export interface ScheduleErrorInfo {
  reason: string;
  /** When it was marked (Redis ms); null for a row found unreadable by a reader. */
  at: number | null;
  /** The occurrence it failed on, if any. */
  fireAt: number | null;
}

/** A stored schedule as every reader sees it: a bad row is decoded as errored, never thrown. */
export interface StoredSchedule {
  def: ScheduleDefinition;
  state: ScheduleState;
  next: number | null;
  /** Set when errored: stored (`e`), or a row a reader cannot use (status then reported `e`). */
  error: ScheduleErrorInfo | null;
  /** The fire time of its occurrence claimed right now, if any (read by `get()` only). */
  claimedFireAt?: number | null;
}

/** One row from its raw parts (definition JSON, state, due score or claim, error JSON). */
export function decodeRow(
  id: string,
  defJSON: string,
  state: ScheduleState,
  nextRaw: number | null,
  errorJSON: string | null | undefined,
): StoredSchedule {
  const { def, problem } = decodeDefinition(id, defJSON);
  let next = nextRaw;
  let reason = problem;
  if (reason === undefined && next !== null && instantProblem(next) !== undefined) {
    reason = `its next due time ${instantProblem(next)}`;
  }
  if (reason !== undefined) {
    next = null;
    return { def, state: { ...state, status: 'e' }, next, error: { reason, at: null, fireAt: null } };
  }
  if (state.status !== 'e') return { def, state, next, error: null };
  let error: ScheduleErrorInfo = { reason: 'errored (no reason stored)', at: null, fireAt: null };
  try {
    const e = JSON.parse(errorJSON ?? '') as Partial<ScheduleErrorInfo>;
    if (typeof e.reason === 'string') {
      error = {
        reason: e.reason,
        at: typeof e.at === 'number' ? e.at : null,
        fireAt: typeof e.fireAt === 'number' ? e.fireAt : null,
      };
    }
  } catch {
    // keep the placeholder reason
  }
  return { def, state, next: null, error };
}

export type UpsertResult =
  | 'created'
  | 'updated'
  | 'unchanged'
  | 'restored'
  | 'kept-completed'
  /** Nothing written: `ifCreatedAt` was given and that schedule is gone (removed, or created again). */
  | 'missing'
  | `claimed:${number}`;

/** How `ScheduleStore.upsert` writes. */
export interface UpsertOptions {
  /** A completed schedule stays completed even if its timing changed. Default: false. */
  keepCompleted?: boolean;
  /**
   * An update: write only over the schedule created at this time (its state row's `createdAt`, as
   * read before the update), else answer `missing`. Default: none (a missing schedule is created).
   */
  ifCreatedAt?: number;
}

/** One claimed occurrence, as the claim script returns it. */
export interface Claim {
  id: string;
  fireAt: number;
  /** The claim string the completion compares against (`fireAt|token`). */
  claim: string;
  /** True when a previous claim of this occurrence lapsed (its replica died or stalled). */
  reclaimed: boolean;
  /** The definition JSON ('' when it vanished). */
  defJSON: string;
  state: ScheduleState | null;
}

export interface ClaimResult {
  /** Redis time at the claim (ms). */
  now: number;
  /** The earliest due time left in `due`, or null. */
  nextDue: number | null;
  /** The earliest lease expiry in `inflight`, or null. */
  nextLease: number | null;
  claims: Claim[];
  /** A batch came full (more is due now); when absent: `claims.length` reached the batch. */
  full?: boolean;
  /**
   * Claims over every partition (see partition-claims.ts): the partitions that had not answered when
   * the cycle went on without them, each settling with its own claims (same token) when it answers.
   */
  late?: Promise<ClaimResult>[];
  /** With a `FleetMember`: the live replicas, and the longest horizon among them (ms). */
  fleet?: { size: number; aheadMs: number };
}

/**
 * A replica claiming as one of a fleet that shares bursts (see claim-6.lua): its id, its own horizon,
 * and the longest it sleeps between claims.
 */
export interface FleetMember {
  replica: string;
  aheadMs: number;
  /** The longest it sleeps between claims (ms). */
  liveMs: number;
  /** Occurrences it claimed that are not due yet. */
  recent: number;
  /** What is due this soon is claimed whatever the shares (ms). */
  imminentMs: number;
}

/** One completion: the records to write and where the schedule goes next. */
export interface Completion {
  claim: Claim;
  /** The claimed occurrence was enqueued (its record is written, and it counts for `maxRuns`). */
  enqueued?: {
    kind: 'scheduled' | 'catch-up';
    queue: string;
    jobId: string;
    /** Redis time when it was handed to BullMQ, read before the add (the completion's `now` without it). */
    enqueuedAt?: number;
    /** Who claimed it and when (see `RunRecord.replica`). */
    replica?: string;
    claimedAt?: number;
    reclaimed?: boolean;
  };
  /** The next due time, or null: completed. */
  next: number | null;
  /** Other records (missed occurrences, the pre-record of a coalesced catch-up). */
  records: { fireAt: number; field: string; patch: Partial<RunRecord>; counter?: 'missed' }[];
  /** Missed occurrences beyond the written records (counted, not recorded). */
  missedUncounted: number;
  /** Occurrences coalesced by backpressure (counted as `coalesced`, not recorded). */
  coalesced?: number;
}

/** The schedules in Redis: definitions, due times, claims and states, each change one Lua script. */
export class ScheduleStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    /** Records kept per schedule. */
    private readonly historyLimit: number,
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
      def.id,
      encodeDefinition(def),
      fingerprint,
      next === null ? '' : next,
      now,
      def.source === 'code' ? 'c' : 'r',
      options.keepCompleted ? '1' : '',
      options.ifCreatedAt === undefined ? '' : options.ifCreatedAt,
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
        claim: `${at}|${token}`,
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
      const groups = this.byPartition(completions, (c) => c.claim.id);
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
    const groups = this.byPartition(ids, (id) => id);
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
      const e = c.enqueued;
      args.push(
        c.claim.id,
        c.claim.fireAt,
        c.next === null ? '-1' : c.next,
        e === undefined
          ? ''
          : JSON.stringify({
              scheduleId: c.claim.id,
              fireAt: c.claim.fireAt,
              kind: e.kind,
              outcome: 'enqueued',
              enqueuedAt: e.enqueuedAt ?? now,
              queue: e.queue,
              jobId: e.jobId,
              ...(e.replica !== undefined && { replica: e.replica }),
              ...(e.claimedAt !== undefined && { claimedAt: e.claimedAt }),
              ...(e.reclaimed && { reclaimed: true }),
            }),
        c.records.length === 0
          ? ''
          : JSON.stringify(c.records.map((r) => [r.field, String(r.fireAt), r.patch, r.counter ?? ''])),
        c.missedUncounted,
        c.coalesced ?? 0,
      );
    }
    return this.redis.bbComplete(...args);
  }

  /**
   * Move a schedule between statuses: 1 done, 0 no such schedule, -1 not in one of `from`, -2 nothing
   * written: it is claimed at or after `next` (re-read it and resume after the claimed occurrence).
   */
  setStatus(id: string, from: string, to: StateCode, next: number | null = null): Promise<number> {
    const k = this.keys.of(id);
    return this.redis.bbSetStatus(
      k.state,
      k.due,
      k.inflight,
      k.resched,
      k.claim,
      id,
      from,
      to,
      next === null ? '' : next,
    );
  }

  /** Delete a schedule with its history (only if its status is `onlyIf`, when given). */
  async remove(id: string, onlyIf: StateCode | '' = ''): Promise<boolean> {
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
      id,
      onlyIf,
    );
    return n === 1;
  }

  /**
   * Mark a schedule errored (see `lua/mark-errored-8.lua`): from its claim (`claim` = `fireAt|token`, only if
   * still ours), or at definition (`claim` = ''). True if it is now errored.
   */
  async markErrored(id: string, claim: string, error: ScheduleErrorInfo, now: number): Promise<boolean> {
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
      id,
      claim,
      JSON.stringify(error),
      now,
    );
    return n === 1;
  }

  /** Clear an errored schedule: active from `next` (or completed when null). True if it was errored. */
  async clearError(id: string, next: number | null, now: number): Promise<boolean> {
    const k = this.keys.of(id);
    const n = await this.redis.bbClearError(
      k.state,
      k.due,
      k.inflight,
      k.completed,
      k.errors,
      id,
      next === null ? '' : next,
      now,
    );
    return n === 1;
  }

  /** One schedule (a bad row decoded as errored), or null; with the fire time of its occurrence claimed now. */
  async get(id: string): Promise<(StoredSchedule & { claimedFireAt: number | null }) | null> {
    const k = this.keys.of(id);
    const res = (await this.redis
      .multi()
      .hget(k.schedules, id)
      .hget(k.state, id)
      .zscore(k.due, id)
      .hget(k.claim, id)
      .hget(k.errors, id)
      .exec()) as [unknown, string | null][];
    const [defJSON, st, due, claim, error] = res.map((r) => r[1]);
    const state = parseState(st);
    if (!defJSON || !state) return null;
    const claimedFireAt = claim ? Number(String(claim).split('|')[0]) : null;
    const next = due !== null ? Number(due) : claimedFireAt;
    return { ...decodeRow(id, String(defJSON), state, next, error), claimedFireAt };
  }

  /** Many schedules by id, in order (missing ones omitted; bad rows decoded as errored). */
  async getMany(ids: readonly string[]): Promise<StoredSchedule[]> {
    if (ids.length === 0) return [];
    const found = new Map<string, StoredSchedule>();
    // one pipeline per partition (a cluster pipeline stays within one slot)
    await Promise.all(
      [...this.byPartition(ids, (id) => id)].map(([i, part]) =>
        this.readRows(this.keys.partition(i), part, found),
      ),
    );
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  private async readRows(k: Keys, ids: readonly string[], out: Map<string, StoredSchedule>): Promise<void> {
    const pipe = this.redis.pipeline();
    pipe.hmget(k.schedules, ...ids);
    pipe.hmget(k.state, ...ids);
    pipe.hmget(k.claim, ...ids);
    pipe.hmget(k.errors, ...ids);
    for (const id of ids) pipe.zscore(k.due, id);
    const res = (await pipe.exec()) ?? [];
    const defs = (res[0]?.[1] ?? []) as (string | null)[];
    const states = (res[1]?.[1] ?? []) as (string | null)[];
    const claims = (res[2]?.[1] ?? []) as (string | null)[];
    const errors = (res[3]?.[1] ?? []) as (string | null)[];
    ids.forEach((id, i) => {
      const state = parseState(states[i]);
      const defJSON = defs[i];
      if (!defJSON || !state) return;
      const due = res[4 + i]?.[1] as string | null;
      const claim = claims[i];
      const next =
        due !== null && due !== undefined ? Number(due) : claim ? Number(claim.split('|')[0]) : null;
      out.set(id, decodeRow(id, defJSON, state, next, errors[i]));
    });
  }

  /** Items grouped by the partition of their schedule id. */
  private byPartition<T>(items: readonly T[], idOf: (item: T) => string): Map<number, T[]> {
    const groups = new Map<number, T[]>();
    for (const item of items) {
      const i = this.keys.partitionOf(idOf(item));
      let g = groups.get(i);
      if (!g) groups.set(i, (g = []));
      g.push(item);
    }
    return groups;
  }

  /** The store of one partition (itself with one partition): what one fire loop claims from. */
  partition(i: number): ScheduleStore {
    if (this.keys.partitions === 1) return this;
    this.parts ??= this.keys.all().map((k) => new ScheduleStore(this.redis, k, this.historyLimit));
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
