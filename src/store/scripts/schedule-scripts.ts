import type { Redis } from 'ioredis';
import type { Claim, ClaimResult, FleetMember, UpsertResult } from '../forms/index.js';
import {
  type AuditBy,
  auditSlots,
  counted,
  encodeClaimRow,
  encodeDefinition,
  labelsArg,
  parseState,
  patchArgs,
  type ScheduleDefinition,
  type StateCode,
} from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import { ScriptBatcher } from './script-batcher.js';
import { codeName, StatusChange, yes } from './script-codes.js';
import { itemArgs, ScriptCaller, scriptArgs, unexpected } from './script-layout.js';
import {
  CLAIM,
  CLEAR_ERROR,
  ENQUEUED_RECORDS,
  FIRE_BUDGET,
  FOREIGN_OUTCOMES,
  INDEX_EXPECTS,
  INDEX_GROUPS,
  LIST_COUNTS,
  LIST_HEADS,
  MARK_ERRORED,
  MERGE_RUN,
  PAUSE,
  PAUSE_NOTE,
  REMOVE,
  RENEW_CLAIMS,
  REPAIR_INDEX,
  RETAKE,
  SET_STATUS,
  UPSERT,
} from './script-layouts.js';

/** A record still `enqueued`, as `enqueued-records-1` answers it. */
export interface EnqueuedRecord {
  scheduleId: string;
  /** Its occurrence field (`occurrenceField`). */
  field: string;
  queue: string;
  jobId: string;
  enqueuedAt?: number;
  /** As the record says it; undefined when it does not. */
  kind?: string;
}

/** What `list-counts-1` answers for one partition. */
export interface ListCounts {
  /** Its definitions (`HLEN schedules`). */
  definitions: number;
  /** The members of its queue indexes, summed: every schedule indexed, when they count `definitions`. */
  listed: number;
  /** Its `listidx` mark is set: its queue and status indexes were built (or kept from its first create). */
  marked: boolean;
  /** The members of each status index (an active schedule is in none). */
  byStatus: { paused: number; completed: number; errored: number };
  /** A `names` key (data format 2's index of every schedule) is still there. */
  formerNames: boolean;
}

const UPSERT_ANSWERS = new Set(['created', 'updated', 'unchanged', 'restored', 'kept-completed', 'missing']);

/** `''` for none: how the scripts read an absent time or value. */
const orNone = (v: number | string | null | undefined): number | string => v ?? '';

/**
 * The schedules' scripts: definitions, statuses, claims, pauses, and the records written beside a
 * run (a merged patch, a plain Worker's outcomes). Like every caller of the store's scripts
 * (`RunPathScripts`, `LedgerScripts`, `LeaseScripts`), a method per script, given named arguments,
 * that builds the script's KEYS from `Keys` and its ARGV in the order its header names them
 * (`script-layouts.ts`), and decodes its answer (`script-codes.ts`); each calls through one
 * `ScriptCaller` (the scripts defined once on the client).
 */
export class ScheduleScripts {
  readonly #caller: ScriptCaller;

  constructor(redis: Redis) {
    this.#caller = new ScriptCaller(redis);
  }

  /** `upsert-9`: create or update a definition (see `UpsertResult`). */
  async upsert(
    k: Keys,
    a: {
      definition: ScheduleDefinition;
      fingerprint: string;
      next: number | null;
      now: number;
      keepCompleted: boolean;
      ifCreatedAt: number | undefined;
    } & AuditBy,
  ): Promise<UpsertResult> {
    const id = a.definition.id;
    const p = k.of(id);
    const out = await this.#caller.run(
      UPSERT,
      scriptArgs(
        UPSERT,
        {
          ...pick(p, 'schedules', 'due', 'inflight', 'state', 'resched', 'completed', 'claim'),
          audit: p.audit(id),
          counts: p.counts(id),
        },
        {
          id,
          definition: encodeDefinition(a.definition),
          fingerprint: a.fingerprint,
          next: orNone(a.next),
          now: a.now,
          source: a.definition.source === 'code' ? 'c' : 'r',
          keepCompleted: a.keepCompleted ? '1' : '',
          createdAt: orNone(a.ifCreatedAt),
          ...auditSlots(a),
          keepsStreak: a.definition.run.pauseOnFailure !== undefined ? '1' : '',
          labels: labelsArg(a.definition.labels),
        },
      ),
    );
    const answer = String(out);
    if (UPSERT_ANSWERS.has(answer) || /^claimed:\d+$/.test(answer)) return answer as UpsertResult;
    throw unexpected(UPSERT, out);
  }

  /** `claim-6`: claim what is due on partition `k` (lapsed claims first), as one of `fleet` when given. */
  async claim(
    k: Keys,
    a: { batch: number; leaseMs: number; token: string; aheadMs: number; fleet?: FleetMember | undefined },
  ): Promise<ClaimResult> {
    const f = a.fleet;
    const clockMs = this.#caller.clockMs(CLAIM);
    // a test's clock is the last slot: the optional fleet slots before it are then sent as '' (none)
    const none = clockMs === undefined ? undefined : '';
    const raw = (await this.#caller.run(
      CLAIM,
      scriptArgs(CLAIM, pick(k, 'due', 'inflight', 'claim', 'schedules', 'state', 'totals'), {
        batch: a.batch,
        leaseMs: a.leaseMs,
        token: a.token,
        aheadMs: a.aheadMs,
        replica: f?.replica ?? none,
        horizon: f?.aheadMs ?? none,
        longestSleep: f?.liveMs ?? none,
        claimedWithin: f?.recent ?? none,
        imminent: f?.imminentMs ?? none,
        clockMs,
      }),
    )) as (string | number)[];
    // { now, earliest due, earliest lease, parked coalesced, then 5 values per claim, 2 per parked
    // occurrence coalesced[, live replicas, longest horizon] }
    const fleetOf = f ? raw.splice(raw.length - 2, 2).map(Number) : undefined;
    const parkedCount = Number(raw[3] ?? 0);
    const parked = parkedCount > 0 ? raw.splice(raw.length - 2 * parkedCount, 2 * parkedCount) : [];
    const claims: Claim[] = [];
    for (let i = 4; i + 4 < raw.length; i += 5) {
      const fireAt = Number(raw[i + 1]);
      claims.push({
        id: String(raw[i]),
        fireAt,
        claim: encodeClaimRow({ fireAt, token: a.token }),
        reclaimed: Number(raw[i + 2]) === 1,
        defJSON: String(raw[i + 3]),
        state: parseState(String(raw[i + 4])),
      });
    }
    const time = (v: unknown) => (v === '' || v === undefined ? null : Number(v));
    const res: ClaimResult = { now: Number(raw[0]), nextDue: time(raw[1]), nextLease: time(raw[2]), claims };
    if (fleetOf) res.fleet = { size: fleetOf[0]!, aheadMs: fleetOf[1]! };
    if (parked.length > 0) {
      res.coalescedParked = [];
      for (let i = 0; i + 1 < parked.length; i += 2)
        res.coalescedParked.push({ id: String(parked[i]), fireAt: Number(parked[i + 1]) });
    }
    return res;
  }

  /**
   * `renew-claims-2`: extend the leases of the claims `ids` (one partition) still held by `token`; the
   * ids no longer held (completed, or taken over).
   */
  async renewClaims(
    k: Keys,
    a: { ids: readonly string[]; token: string; leaseMs: number },
  ): Promise<string[]> {
    const p = k.of(a.ids[0]!);
    const items = a.ids.map((id) => ({ values: { ids: id } }));
    const argv = { leaseMs: a.leaseMs, token: a.token, clockMs: orNone(this.#caller.clockMs(RENEW_CLAIMS)) };
    const args = scriptArgs(RENEW_CLAIMS, pick(p, 'inflight', 'claim'), argv, items);
    return ((await this.#caller.run(RENEW_CLAIMS, args)) as unknown[]).map(String);
  }

  /** `set-status-6`: move a schedule between statuses (`to` 'a' from `next`, when given). */
  async setStatus(
    k: Keys,
    a: { id: string; from: string; to: StateCode; next: number | null; op: 'orphan' | 'resume' } & AuditBy,
  ): Promise<StatusChange> {
    const p = k.of(a.id);
    const keys = { ...pick(p, 'state', 'due', 'inflight', 'resched', 'claim'), audit: p.audit(a.id) };
    const argv = { id: a.id, from: a.from, to: a.to, next: orNone(a.next), ...auditSlots(a), op: a.op };
    return codeName(
      SET_STATUS,
      StatusChange,
      await this.#caller.run(SET_STATUS, scriptArgs(SET_STATUS, keys, argv)),
    );
  }

  /** `remove-13`: delete a schedule with its history (only if its status is `onlyIf`, when not ''). */
  async remove(k: Keys, a: { id: string; onlyIf: StateCode | '' } & AuditBy): Promise<boolean> {
    const { id } = a;
    const p = k.of(id);
    const keys = {
      ...pick(
        p,
        'schedules',
        'due',
        'inflight',
        'claim',
        'state',
        'resched',
        'completed',
        'errors',
        'totals',
      ),
      runs: p.runs(id),
      runidx: p.runIndex(id),
      counts: p.counts(id),
      audit: p.audit(id),
    };
    const argv = { id, requiredStatus: a.onlyIf, ...auditSlots(a), trailKept: a.audit.retentionMs };
    return yes(REMOVE, await this.#caller.run(REMOVE, scriptArgs(REMOVE, keys, argv)));
  }

  /** `mark-errored-9`: mark a schedule errored, from its claim (`fireAt|token`) or at definition (''). */
  async markErrored(
    k: Keys,
    a: {
      id: string;
      claim: string;
      error: { reason: string; at: number | null; fireAt: number | null };
      now: number;
    } & AuditBy,
  ): Promise<boolean> {
    const p = k.of(a.id);
    const keys = {
      ...pick(p, 'state', 'due', 'inflight', 'claim', 'resched', 'completed', 'errors', 'totals'),
      audit: p.audit(a.id),
    };
    const argv = {
      id: a.id,
      claim: a.claim,
      errorJson: JSON.stringify(a.error),
      now: a.now,
      ...auditSlots(a),
      reason: a.error.reason,
      occurrence: orNone(a.error.fireAt),
    };
    return yes(MARK_ERRORED, await this.#caller.run(MARK_ERRORED, scriptArgs(MARK_ERRORED, keys, argv)));
  }

  /** `clear-error-6`: an errored schedule active again from `next` (completed when null). */
  async clearError(k: Keys, a: { id: string; next: number | null; now: number } & AuditBy): Promise<boolean> {
    const p = k.of(a.id);
    const keys = { ...pick(p, 'state', 'due', 'inflight', 'completed', 'errors'), audit: p.audit(a.id) };
    const argv = { id: a.id, next: orNone(a.next), now: a.now, ...auditSlots(a) };
    return yes(CLEAR_ERROR, await this.#caller.run(CLEAR_ERROR, scriptArgs(CLEAR_ERROR, keys, argv)));
  }

  /** `merge-run-4`: merge a patch into one occurrence's record, bump `counters`. */
  async mergeRun(
    k: Keys,
    a: {
      scheduleId: string;
      field: string;
      fireAt: number;
      historyLimit: number;
      counters: readonly string[];
      patch: { readonly [name: string]: unknown };
    },
  ): Promise<void> {
    const id = a.scheduleId;
    const p = k.of(id);
    const patch = patchArgs(a.patch);
    const keys = { runs: p.runs(id), runidx: p.runIndex(id), counts: p.counts(id), totals: p.totals };
    await this.#caller.run(
      MERGE_RUN,
      scriptArgs(MERGE_RUN, keys, {
        field: a.field,
        score: a.fireAt,
        scheduleId: id,
        historyLimit: a.historyLimit,
        counters: a.counters.join(','),
        removes: patch.drop,
        pairs: counted(patch.set),
      }),
    );
  }

  /**
   * `foreign-outcomes-2`, batched: a function recording one outcome on partition `lane`, the outcomes
   * recorded together going in one call per partition (at most `perCall`). Answers true when written
   * and counted, false when left alone.
   */
  foreignOutcomes(
    k: Keys,
    a: { historyLimit: number; perCall: number },
  ): (
    lane: number,
    o: {
      scheduleId: string;
      field: string;
      fireAt: number;
      jobId: string;
      counters: readonly string[];
      /** The kind of a record written first; undefined: written only over a record there. */
      kind: string | undefined;
      patch: { readonly [name: string]: unknown };
    },
  ) => Promise<boolean | 'no-record'> {
    const l = FOREIGN_OUTCOMES;
    const batcher = new ScriptBatcher(
      async (lane, values) => {
        const p = k.partition(lane);
        const shared = scriptArgs(l, pick(p, 'totals', 'schedules'), {
          base: p.base,
          historyLimit: a.historyLimit,
        });
        return (await this.#caller.run(l, [...shared, ...values])) as unknown[];
      },
      2,
      a.perCall,
    );
    return async (lane, o) => {
      const values = {
        scheduleId: o.scheduleId,
        field: o.field,
        score: o.fireAt,
        jobId: o.jobId,
        counters: o.counters.join(','),
        kind: o.kind ?? '',
        pairs: counted(patchArgs(o.patch).set),
      };
      const [written] = await batcher.call(lane, itemArgs(l, values));
      return Number(written) === 2 ? 'no-record' : yes(l, written);
    };
  }

  /**
   * `retake-3`: before adding an occurrence whose claim was taken over, enter it in its schedule's start
   * marks; true when an add of its job started (or skipped) it already, so nothing is added.
   */
  async retake(k: Keys, a: { scheduleId: string; field: string; keptMs: number }): Promise<boolean> {
    const id = a.scheduleId;
    const p = k.of(id);
    const keys = { taken: p.taken(id), rec: p.record(id, a.field), runs: p.runs(id) };
    const args = scriptArgs(RETAKE, keys, { field: a.field, kept: a.keptMs });
    return yes(RETAKE, await this.#caller.run(RETAKE, args));
  }

  /**
   * `fire-budget-1`: the instant each occurrence fires at under the fire-rate cap (`maxFiresPerSecond`),
   * none before Redis time + `leadMs` (the time the caller's add takes to land).
   */
  async fireBudget(k: Keys, cap: number, leadMs: number, instants: readonly number[]): Promise<number[]> {
    const items = instants.map((instant) => ({ values: { instant } }));
    const args = scriptArgs(FIRE_BUDGET, { fireBudget: k.fireBudget }, { cap, lead: leadMs }, items);
    return ((await this.#caller.run(FIRE_BUDGET, args)) as unknown[]).map(Number);
  }

  /**
   * `index-groups-2`: index the groups of these ids' definitions (of one partition, `k`), written before
   * the group index existed; `last` marks the partition indexed. Answers how many name a group.
   */
  async indexGroups(k: Keys, ids: readonly string[], last: boolean): Promise<number> {
    const items = ids.map((id) => ({ values: { ids: id } }));
    const keys = { schedules: k.schedules, groupsIndexed: k.groupsIndexed };
    return Number(
      await this.#caller.run(INDEX_GROUPS, scriptArgs(INDEX_GROUPS, keys, { last: last ? 1 : 0 }, items)),
    );
  }

  /**
   * `index-expects-2`: index the expectations of these ids' definitions (of one partition, `k`), written
   * before the expectations index existed; `last` marks the partition indexed. Answers how many expect.
   */
  async indexExpects(k: Keys, ids: readonly string[], last: boolean): Promise<number> {
    const items = ids.map((id) => ({ values: { ids: id } }));
    const keys = { schedules: k.schedules, expectsIndexed: k.expectsIndexed };
    return Number(
      await this.#caller.run(INDEX_EXPECTS, scriptArgs(INDEX_EXPECTS, keys, { last: last ? 1 : 0 }, items)),
    );
  }

  /**
   * `repair-index-3`: bring the list indexes (by queue, status) and the group index of one partition
   * (`k`) up to date for these entries (`i<id>`: an id of the partition; `m<member>`: a member of one of
   * its queue or status indexes; `q<queue>\0<member>`: a member of a queue's index). Answers how many
   * changed an index.
   */
  async repairIndex(k: Keys, entries: readonly string[]): Promise<number> {
    const items = entries.map((entry) => ({ values: { entry } }));
    const keys = { schedules: k.schedules, queues: k.queues, state: k.state };
    return Number(await this.#caller.run(REPAIR_INDEX, scriptArgs(REPAIR_INDEX, keys, {}, items)));
  }

  /**
   * `list-heads-1`: the first members after `from` (`-`, or `(` and a member) of each of one partition's
   * (`k`) queue indexes, by queue: at most `share` of each, its share of a walk's first `n`.
   */
  async listHeads(
    k: Keys,
    from: string,
    n: number,
  ): Promise<{ share: number; heads: { queue: string; members: string[] }[] }> {
    const args = scriptArgs(LIST_HEADS, { schedules: k.schedules }, { from, n });
    const [share = n, ...flat] = ((await this.#caller.run(LIST_HEADS, args)) ?? []) as (string | number)[];
    const heads: { queue: string; members: string[] }[] = [];
    for (let i = 0; i + 1 < flat.length; ) {
      const count = Number(flat[i + 1]);
      heads.push({ queue: String(flat[i]), members: flat.slice(i + 2, i + 2 + count).map(String) });
      i += 2 + count;
    }
    return { share: Number(share), heads };
  }

  /**
   * `enqueued-records-1`: the records still `enqueued` (with a queue and a job id) among the newest
   * `depth` of each of `ids`, all of one partition (`k`), newest first per schedule; only those are
   * answered.
   */
  async enqueuedRecords(k: Keys, ids: readonly string[], depth: number): Promise<EnqueuedRecord[]> {
    if (ids.length === 0) return [];
    const args = scriptArgs(
      ENQUEUED_RECORDS,
      { schedules: k.schedules },
      { base: k.base, depth },
      ids.map((id) => ({ values: { id } })),
    );
    const flat = ((await this.#caller.run(ENQUEUED_RECORDS, args)) ?? []) as (string | number)[];
    const out: EnqueuedRecord[] = [];
    for (let i = 0; i + 5 < flat.length; i += 6) {
      const enqueuedAt = String(flat[i + 4]);
      const kind = String(flat[i + 5]);
      out.push({
        scheduleId: ids[Number(flat[i]) - 1]!,
        field: String(flat[i + 1]),
        queue: String(flat[i + 2]),
        jobId: String(flat[i + 3]),
        ...(enqueuedAt !== '' && { enqueuedAt: Number(enqueuedAt) }),
        ...(kind !== '' && { kind }),
      });
    }
    return out;
  }

  /** `list-counts-1`: the counts of one partition's (`k`) list indexes and definitions, in one step. */
  async listCounts(k: Keys): Promise<ListCounts> {
    const res = (await this.#caller.run(
      LIST_COUNTS,
      scriptArgs(LIST_COUNTS, { schedules: k.schedules }, {}),
    )) as number[] | undefined;
    const [definitions = 0, listed = 0, marked = 0, paused = 0, completed = 0, errored = 0, names = 0] = (
      res ?? []
    ).map(Number);
    return {
      definitions,
      listed,
      marked: marked === 1,
      byStatus: { paused, completed, errored },
      formerNames: names === 1,
    };
  }

  /** `pause-note-2`: write (`noteJson`) or clear ('') a pause note, consistent with the status. */
  async pauseNote(k: Keys, a: { id: string; noteJson: string }): Promise<boolean> {
    const p = k.of(a.id);
    const args = scriptArgs(PAUSE_NOTE, { state: p.state, notes: p.pauseNotes }, a);
    return yes(PAUSE_NOTE, await this.#caller.run(PAUSE_NOTE, args));
  }

  /** `pause-5`: pause an active schedule with its note and its audit entry. */
  async pause(
    k: Keys,
    a: { id: string; note: { note: string; by: string; at: number } } & AuditBy,
  ): Promise<Exclude<StatusChange, 'claimed'>> {
    const p = k.of(a.id);
    const keys = { ...pick(p, 'state', 'due', 'resched'), notes: p.pauseNotes, audit: p.audit(a.id) };
    const argv = { id: a.id, noteJson: JSON.stringify(a.note), noteText: a.note.note, ...auditSlots(a) };
    const { claimed: _, ...codes } = StatusChange;
    return codeName(PAUSE, codes, await this.#caller.run(PAUSE, scriptArgs(PAUSE, keys, argv)));
  }
}

/** The named fields of a `Keys`, for a layout's slots of the same names. */
export function pick<N extends keyof Keys>(k: Keys, ...names: N[]): { [P in N]: string } {
  const out = {} as { [P in N]: string };
  for (const n of names) out[n] = k[n] as string;
  return out;
}
