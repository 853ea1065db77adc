import type { Redis } from 'ioredis';
import type { AuditActor } from '../forms/index.js';
import {
  type AuditConfig,
  DEFAULT_AUDIT,
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

/** What a backfill finds about one occurrence (`lua/backfill-take-10.lua`; `BackfillCode`). */
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
        }
      | undefined,
    /** Which occurrences may run: `failed`, `missed`, `not-run` (absent: not-run's choice). */
    only?: string,
  ): Promise<{ now: number; verdicts: BackfillVerdict[] } | null> {
    return this.scripts.backfillTake(this.keys, {
      scheduleId,
      take,
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
   * Give back occurrences taken and not enqueued (a backfill stopped by a pause): out of the ledger and
   * the owed set together, so that no replica enqueues them and a later backfill or a resume's catch-up
   * may take them again.
   */
  async release(scheduleId: string, runs: readonly OwedRun[]): Promise<void> {
    if (runs.length === 0) return;
    const k = this.keys.of(scheduleId);
    await this.redis
      .multi()
      .zrem(k.owedRuns, ...runs.map(owedMember))
      .zrem(k.backfills(scheduleId), ...runs.map((r) => String(r.fireAt)))
      .exec();
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
   * Forget a schedule's ledger, paused spans, start marks and owed runs (when it is removed), so that a schedule
   * re-created under its id inherits none of them. The owed set holds only what is being enqueued:
   * reading it whole is cheap.
   */
  async clear(scheduleId: string): Promise<void> {
    const k = this.keys.of(scheduleId);
    await this.redis.del(k.backfills(scheduleId), k.pausedSpans(scheduleId), k.taken(scheduleId));
    const owed = await this.redis.zrange(k.owedRuns, '0', '-1');
    const mine = owed.filter((m) => parseOwedMember(m)?.scheduleId === scheduleId);
    if (mine.length > 0) await this.redis.zrem(k.owedRuns, ...mine);
  }
}
