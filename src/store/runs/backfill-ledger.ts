import type { Redis } from 'ioredis';
import type { AuditActor } from '../forms/index.js';
import {
  type AuditConfig,
  type BackfillOverride,
  DEFAULT_AUDIT,
  decodeBackfillOverride,
  encodeBackfillOverride,
  type OverlapPolicy,
  type OwedRun,
  owedMember,
  parseOwedMember,
} from '../forms/index.js';
import { type Keys, occurrenceField } from '../keys/index.js';
import type { RunPatch } from '../reads/index.js';
import type { BackfillVerdict, StatusChange } from '../scripts/index.js';
import { LedgerScripts } from '../scripts/index.js';

/** How long a schedule's ledger (and its paused spans) is kept after its last write: 90 days. */
export const BACKFILL_LEDGER_TTL_MS = 90 * 24 * 3600 * 1000;

/** What a backfill finds about one occurrence (`lua/backfill-take-11.lua`; `BackfillCode`). */
export type { BackfillVerdict };

/** What `resume` answers: `done` (with the catch-up runs it took), else why not (`set-status-6`'s codes). */
export interface ResumeTake {
  code: StatusChange;
  /** The catch-up runs taken (none unless `done`). */
  runs: { fireAt: number; coalesced?: number }[];
}

/** An owed occurrence to enqueue, with its schedule's stored definition (JSON). */
export interface LapsedOwedRun {
  run: OwedRun;
  member: string;
  definition: string;
  /** The Redis time by which the sweep that took it adds it (past it, another sweep may). */
  owedBy: number;
}

/**
 * The one ledger of a schedule's occurrences run outside its fire loop: a backfill and a resume's
 * catch-up each take an occurrence into it in the same script that decides to run it, so neither runs
 * one the other (or another backfill, or another resume) ran, from any process, while the ledger is
 * kept. A taken occurrence is owed until it is enqueued and recorded (`done`); past its time, any
 * scheduler replica enqueues it (`takeLapsed`), so a crash of its taker loses nothing.
 */
export class BackfillLedger {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    /** How many records each schedule keeps (`historyLimit`). */
    private readonly historyLimit = 100,
    /** The audit trails' bounds: a backfill's and a resume's entries are written by their scripts. */
    private readonly audit: AuditConfig = DEFAULT_AUDIT,
  ) {
    this.scripts = new LedgerScripts(redis);
  }

  private readonly scripts: LedgerScripts;

  /**
   * Redis time and a verdict per fire time (null when the schedule does not exist). With `take`, the
   * ones to run are taken into the ledger and owed, each to be enqueued within its `withinMs`.
   */
  async judge(
    scheduleId: string,
    occurrences: readonly { fireAt: number; withinMs: number }[],
    take:
      | {
          overlap: OverlapPolicy;
          from: number;
          to: number;
          by?: AuditActor | undefined;
          /** What its runs override (`data`, `jobOptions`): the audit entry's `overrides`. */
          overrides?: string | undefined;
          /**
           * What its runs carry instead of the schedule's, under an id of this backfill's own (the same
           * in each of its calls): kept with each occurrence taken while it is owed (`overridesOf`).
           */
          override?: { id: string; value: BackfillOverride } | undefined;
        }
      | undefined,
    /** Which occurrences may run: `failed`, `missed`, `not-run` (absent: not-run's choice). */
    only?: string,
  ): Promise<{ now: number; verdicts: BackfillVerdict[] } | null> {
    const override = take?.override && {
      id: take.override.id,
      json: encodeBackfillOverride(take.override.value),
    };
    return this.scripts.backfillTake(this.keys, {
      scheduleId,
      take: take && { ...take, override },
      only,
      ledgerExpiryMs: BACKFILL_LEDGER_TTL_MS,
      occurrences,
      audit: this.audit,
      by: take?.by,
    });
  }

  /**
   * Resume a paused schedule from `next`, record the span it was paused over, and take its catch-up
   * runs among `candidates` (`lua/resume-10.lua`), owed for `withinMs`.
   */
  async resume(
    scheduleId: string,
    next: number,
    policy: 'skip' | 'once' | 'all',
    candidates: readonly number[],
    withinMs: number,
    by?: AuditActor,
  ): Promise<ResumeTake> {
    return this.scripts.resume(this.keys, {
      id: scheduleId,
      next,
      policy,
      ledgerExpiryMs: BACKFILL_LEDGER_TTL_MS,
      withinMs,
      candidates,
      audit: this.audit,
      by,
    });
  }

  /**
   * Give enqueued occurrences their `enqueued` records and strike them from the owed set, in one step.
   * False when the schedule no longer exists (no record written).
   */
  async done(scheduleId: string, entries: readonly { run: OwedRun; patch: RunPatch }[]): Promise<boolean> {
    if (entries.length === 0) return true;
    const records = entries.map(({ run, patch }) => ({
      owedMember: owedMember(run),
      field: occurrenceField(run.fireAt, run.lane === 'backfill' ? 'backfill' : false),
      fireAt: run.fireAt,
      patch,
    }));
    const written = await this.scripts.owedDone(this.keys, {
      scheduleId,
      historyLimit: this.historyLimit,
      records,
    });
    return written !== null;
  }

  /**
   * Before its taker adds owed occurrences of `scheduleId` (each with the time it was given, `owedBy`):
   * those still its own are kept `leaseMs` more, and the others (a sweep took them while the taker was
   * stopped) are returned: the taker adds nothing for them.
   */
  async keep(
    scheduleId: string,
    runs: readonly { run: OwedRun; owedBy: number }[],
    leaseMs: number,
  ): Promise<Set<OwedRun>> {
    if (runs.length === 0) return new Set();
    const owed = runs.map(({ run, owedBy }) => ({ member: owedMember(run), given: owedBy }));
    const lost = new Set(await this.scripts.owedKeep(this.keys.of(scheduleId), { leaseMs, owed }));
    return new Set(runs.filter((_, i) => lost.has(owed[i]!.member)).map((r) => r.run));
  }

  /**
   * Give back occurrences taken and not enqueued (a backfill stopped by a pause): out of the ledger,
   * the owed set and the overrides together (`owed-release-3`), so that no replica enqueues them and a
   * later backfill or a resume's catch-up may take them again.
   */
  async release(scheduleId: string, runs: readonly OwedRun[]): Promise<void> {
    if (runs.length === 0) return;
    const owed = runs.map((r) => ({ member: owedMember(r), fireAt: r.fireAt }));
    await this.scripts.owedRelease(this.keys, { scheduleId, owed });
  }

  /**
   * The overrides of owed backfilled occurrences of `scheduleId` (by fire time): what the backfill that
   * took each carries instead of the schedule's, with its id; a fire time its backfill did not override
   * is absent, one whose stored override cannot be read maps to `problem`. Read after the occurrences
   * are taken (`takeLapsed`) and before their add is kept (`keep`): an override stays while an
   * occurrence naming it is owed, and one struck meanwhile is no longer the reader's to add.
   */
  async overridesOf(
    scheduleId: string,
    fireAts: readonly number[],
  ): Promise<Map<number, { id: string; value: BackfillOverride } | { id: string; problem: string }>> {
    const out = new Map<number, { id: string; value: BackfillOverride } | { id: string; problem: string }>();
    if (fireAts.length === 0) return out;
    const key = this.keys.of(scheduleId).backfillOverrides(scheduleId);
    const ids = await this.redis.hmget(key, ...fireAts.map(String));
    const distinct = [...new Set(ids.filter((x): x is string => x !== null))];
    if (distinct.length === 0) return out;
    const texts = await this.redis.hmget(key, ...distinct.map((id) => `=${id}`));
    const byId = new Map(distinct.map((id, i) => [id, texts[i] ?? null]));
    fireAts.forEach((t, i) => {
      const id = ids[i];
      if (id === null || id === undefined) return;
      const value = decodeBackfillOverride(byId.get(id));
      out.set(t, value ? { id, value } : { id, problem: `override ${id} is missing or unreadable` });
    });
    return out;
  }

  /** Take, in partition `index`, at most `max` owed occurrences whose time has passed, each for `leaseMs` more. */
  async takeLapsed(index: number, leaseMs: number, max: number): Promise<LapsedOwedRun[]> {
    const k = this.keys.partition(index);
    const taken: LapsedOwedRun[] = [];
    const { owedBy, taken: owed } = await this.scripts.owedTake(k, { leaseMs, max });
    for (const { member, definition } of owed) {
      const run = parseOwedMember(member);
      if (run) taken.push({ run, member, definition, owedBy });
      else await this.redis.zrem(k.owedRuns, member); // not one of ours: never taken again
    }
    return taken;
  }

  /**
   * Forget a schedule's ledger, paused spans, start marks, backfill overrides and owed runs (when it is removed), so that a schedule
   * re-created under its id inherits none of them. The owed set holds only what is being enqueued:
   * reading it whole is cheap.
   */
  async clear(scheduleId: string): Promise<void> {
    const k = this.keys.of(scheduleId);
    await this.redis.del(
      k.backfills(scheduleId),
      k.pausedSpans(scheduleId),
      k.taken(scheduleId),
      k.backfillOverrides(scheduleId),
    );
    const owed = await this.redis.zrange(k.owedRuns, '0', '-1');
    const mine = owed.filter((m) => parseOwedMember(m)?.scheduleId === scheduleId);
    if (mine.length > 0) await this.redis.zrem(k.owedRuns, ...mine);
  }
}
