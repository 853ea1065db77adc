import type { Redis } from 'ioredis';
import type { AuditActor } from './audit-entry.js';
import { type AuditConfig, auditArgs, DEFAULT_AUDIT } from './audit-trail.js';
import { type Keys, occurrenceField } from './keys.js';
import { type OwedOverlap, type OwedRun, owedMember, parseOwedMember } from './owed-run.js';
import { counted, patchArgs } from './record-form.js';
import type { RunPatch } from './run-history.js';
import { defineStoreScripts } from './scripts.js';

/** How long a schedule's ledger (and its paused spans) is kept after its last write: 90 days. */
export const BACKFILL_LEDGER_TTL_MS = 90 * 24 * 3600 * 1000;

/** What a backfill finds about one occurrence (`lua/backfill-take-10.lua`). */
export type BackfillVerdict =
  | 'run' // nothing ran it: taken, to enqueue
  | 'ran' // its scheduled record shows it enqueued or run, or the fire loop passed over it
  | 'backfilled' // a backfill or a resume's catch-up took it already
  | 'scheduled' // the schedule's own firing has it ahead (at or after its claimed or due time)
  | 'future'; // after Redis's clock

const VERDICTS: readonly BackfillVerdict[] = ['run', 'ran', 'backfilled', 'scheduled', 'future'];

/** What `resume` answers: 1 resumed (with the catch-up runs it took), else why not. */
export type ResumeTake =
  | { code: 1; runs: { fireAt: number; coalesced?: number }[] }
  | { code: 0 | -1 | -2; runs: [] };

/** An owed occurrence to enqueue, with its schedule's stored definition (JSON). */
export interface LapsedOwedRun {
  run: OwedRun;
  member: string;
  definition: string;
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
    defineStoreScripts(redis);
  }

  /**
   * Redis time and a verdict per fire time (null when the schedule does not exist). With `take`, the
   * ones to run are taken into the ledger and owed, each to be enqueued within its `withinMs`.
   */
  async judge(
    scheduleId: string,
    occurrences: readonly { fireAt: number; withinMs: number }[],
    take: { overlap: OwedOverlap; from: number; to: number; by?: AuditActor | undefined } | undefined,
  ): Promise<{ now: number; verdicts: BackfillVerdict[] } | null> {
    const k = this.keys.of(scheduleId); // its partition's keys (one slot)
    const args: (string | number)[] = [];
    for (const o of occurrences) args.push(o.fireAt, Math.ceil(o.withinMs));
    const out = await this.redis.bbBackfillTake(
      k.runs(scheduleId),
      k.backfills(scheduleId),
      k.pausedSpans(scheduleId),
      k.owedRuns,
      k.due,
      k.claim,
      k.schedules,
      k.state,
      k.pauseNotes,
      k.audit(scheduleId),
      scheduleId,
      take ? '1' : '',
      BACKFILL_LEDGER_TTL_MS,
      `b|${take?.overlap ?? 'bufferAll'}|`,
      ...auditArgs(this.audit, take?.by),
      take?.from ?? '',
      take?.to ?? '',
      ...args,
    );
    if (out[0] === -1) return null;
    return { now: Number(out[0]), verdicts: out.slice(1).map((c) => VERDICTS[Number(c)] ?? 'ran') };
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
    const k = this.keys.of(scheduleId);
    const out = await this.redis.bbResume(
      k.state,
      k.due,
      k.inflight,
      k.resched,
      k.claim,
      k.backfills(scheduleId),
      k.pausedSpans(scheduleId),
      k.owedRuns,
      k.pauseNotes,
      k.audit(scheduleId),
      scheduleId,
      next,
      policy,
      BACKFILL_LEDGER_TTL_MS,
      Math.ceil(withinMs),
      'bufferAll',
      ...auditArgs(this.audit, by),
      ...candidates,
    );
    const code = Number(out[0]);
    if (code !== 1) return { code: code as 0 | -1 | -2, runs: [] };
    const runs: { fireAt: number; coalesced?: number }[] = [];
    for (let i = 1; i < out.length; i += 2) {
      const coalesced = String(out[i + 1] ?? '');
      runs.push({ fireAt: Number(out[i]), ...(coalesced !== '' && { coalesced: Number(coalesced) }) });
    }
    return { code: 1, runs };
  }

  /**
   * Give enqueued occurrences their `enqueued` records and strike them from the owed set, in one step.
   * False when the schedule no longer exists (no record written).
   */
  async done(scheduleId: string, entries: readonly { run: OwedRun; patch: RunPatch }[]): Promise<boolean> {
    if (entries.length === 0) return true;
    const k = this.keys.of(scheduleId);
    const args: (string | number)[] = [];
    for (const { run, patch } of entries) {
      const field = occurrenceField(run.fireAt, run.lane === 'backfill' ? 'backfill' : false);
      args.push(owedMember(run), field, run.fireAt, ...counted(patchArgs(patch).set));
    }
    const written = await this.redis.bbOwedDone(
      k.runs(scheduleId),
      k.runIndex(scheduleId),
      k.owedRuns,
      k.schedules,
      scheduleId,
      this.historyLimit,
      ...args,
    );
    return written !== -1;
  }

  /** Take, in partition `index`, at most `max` owed occurrences whose time has passed, each for `leaseMs` more. */
  async takeLapsed(index: number, leaseMs: number, max: number): Promise<LapsedOwedRun[]> {
    const k = this.keys.partition(index);
    const out = await this.redis.bbOwedTake(k.owedRuns, k.schedules, leaseMs, max);
    const taken: LapsedOwedRun[] = [];
    for (let i = 0; i + 1 < out.length; i += 2) {
      const member = out[i] as string;
      const run = parseOwedMember(member);
      if (run) taken.push({ run, member, definition: out[i + 1] as string });
      else await this.redis.zrem(k.owedRuns, member); // not one of ours: never taken again
    }
    return taken;
  }

  /**
   * Forget a schedule's ledger, paused spans and owed runs (when it is removed), so that a schedule
   * re-created under its id inherits none of them. The owed set holds only what is being enqueued:
   * reading it whole is cheap.
   */
  async clear(scheduleId: string): Promise<void> {
    const k = this.keys.of(scheduleId);
    await this.redis.del(k.backfills(scheduleId), k.pausedSpans(scheduleId));
    const owed = await this.redis.zrange(k.owedRuns, '0', '-1');
    const mine = owed.filter((m) => parseOwedMember(m)?.scheduleId === scheduleId);
    if (mine.length > 0) await this.redis.zrem(k.owedRuns, ...mine);
  }
}
