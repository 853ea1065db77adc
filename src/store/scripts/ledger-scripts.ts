import type { Redis } from 'ioredis';
import type { OverlapPolicy } from '../forms/index.js';
import { type AuditBy, auditSlots, counted, patchArgs } from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import {
  BackfillCode,
  type BackfillVerdict,
  codeName,
  type HandOver,
  HandOverCode,
  NO_SCHEDULE,
  StatusChange,
} from './script-codes.js';
import { ScriptCaller, scriptArgs } from './script-layout.js';
import {
  BACKFILL_TAKE,
  FINISHED_JOBS,
  HANDOVER_SCHEDULER,
  MANUAL_RUN,
  OWED_DONE,
  OWED_KEEP,
  OWED_RELEASE,
  OWED_TAKE,
  RESUME,
  UNSTAGE,
  UNSTARTED_SINCE,
} from './script-layouts.js';

type Patch = { readonly [name: string]: unknown };

/** The scripts of the backfill ledger, a manual run's record and BullMQ's keys (see `ScheduleScripts`). */
export class LedgerScripts {
  readonly #caller: ScriptCaller;

  constructor(redis: Redis) {
    this.#caller = new ScriptCaller(redis);
  }

  /**
   * `backfill-take-11`: Redis time and a verdict per occurrence (null when the schedule does not exist);
   * with `take`, the ones to run are taken into the ledger and owed, each to be enqueued within its
   * `withinMs`, and name the backfill's override (`take.override`, JSON) when it has one.
   */
  async backfillTake(
    k: Keys,
    a: {
      scheduleId: string;
      take:
        | {
            overlap: OverlapPolicy;
            from: number;
            to: number;
            overrides?: string | undefined;
            /** The backfill's override: its id (the same for each call of one backfill) and JSON. */
            override?: { id: string; json: string } | undefined;
          }
        | undefined;
      /** `failed`, `missed`, `not-run` (see `BackfillOptions.only`); absent: not-run's choice. */
      only?: string | undefined;
      ledgerExpiryMs: number;
      occurrences: readonly { fireAt: number; withinMs: number }[];
    } & AuditBy,
  ): Promise<{ now: number; verdicts: BackfillVerdict[] } | null> {
    const id = a.scheduleId;
    const p = k.of(id);
    const keys = {
      runs: p.runs(id),
      backfills: p.backfills(id),
      paused: p.pausedSpans(id),
      owedRuns: p.owedRuns,
      due: p.due,
      claim: p.claim,
      schedules: p.schedules,
      state: p.state,
      notes: p.pauseNotes,
      audit: p.audit(id),
      backfillOverrides: p.backfillOverrides(id),
    };
    const argv = {
      id,
      take: a.take ? '1' : '',
      ledgerExpiry: a.ledgerExpiryMs,
      owedMiddle: `b|${a.take?.overlap ?? 'bufferAll'}|`,
      ...auditSlots(a),
      from: a.take?.from ?? '',
      to: a.take?.to ?? '',
      only: a.only ?? '',
      overrides: a.take?.overrides ?? '',
      overrideId: a.take?.override?.id ?? '',
      override: a.take?.override?.json ?? '',
    };
    const items = a.occurrences.map((o) => ({
      values: { fireTime: o.fireAt, msAfterNow: Math.ceil(o.withinMs) },
    }));
    const out = (await this.#caller.run(
      BACKFILL_TAKE,
      scriptArgs(BACKFILL_TAKE, keys, argv, items),
    )) as number[];
    if (Number(out[0]) === NO_SCHEDULE) return null;
    return {
      now: Number(out[0]),
      verdicts: out.slice(1).map((c) => codeName(BACKFILL_TAKE, BackfillCode, c)),
    };
  }

  /**
   * `resume-10`: resume a paused schedule from `next`, record the span it was paused over, and take
   * its catch-up runs among `candidates`, owed for `withinMs`.
   */
  async resume(
    k: Keys,
    a: {
      id: string;
      next: number;
      policy: 'skip' | 'once' | 'all';
      ledgerExpiryMs: number;
      withinMs: number;
      candidates: readonly number[];
    } & AuditBy,
  ): Promise<{ code: StatusChange; runs: { fireAt: number; coalesced?: number }[] }> {
    const { id } = a;
    const p = k.of(id);
    const keys = {
      state: p.state,
      due: p.due,
      inflight: p.inflight,
      resched: p.resched,
      claim: p.claim,
      backfills: p.backfills(id),
      paused: p.pausedSpans(id),
      owedRuns: p.owedRuns,
      notes: p.pauseNotes,
      audit: p.audit(id),
    };
    const argv = {
      id,
      next: a.next,
      policy: a.policy,
      ledgerExpiry: a.ledgerExpiryMs,
      msAfterNow: Math.ceil(a.withinMs),
      owedOverlap: 'bufferAll',
      ...auditSlots(a),
    };
    const items = a.candidates.map((c) => ({ values: { candidate: c } }));
    const out = (await this.#caller.run(RESUME, scriptArgs(RESUME, keys, argv, items))) as (
      | number
      | string
    )[];
    // { code }, or { done, then per catch-up run taken: fire time, coalesced ('' for `all`) }
    const code = codeName(RESUME, StatusChange, out[0]);
    const runs: { fireAt: number; coalesced?: number }[] = [];
    if (code !== 'done') return { code, runs };
    for (let i = 1; i < out.length; i += 2) {
      const coalesced = String(out[i + 1] ?? '');
      runs.push({ fireAt: Number(out[i]), ...(coalesced !== '' && { coalesced: Number(coalesced) }) });
    }
    return { code, runs };
  }

  /**
   * `owed-done-5`: the `enqueued` records of owed occurrences just enqueued, their members struck (and
   * their fire times' overrides).
   * How many records were written; null when the schedule no longer exists (none written).
   */
  async owedDone(
    k: Keys,
    a: {
      scheduleId: string;
      historyLimit: number;
      records: readonly { owedMember: string; field: string; fireAt: number; patch: Patch }[];
    },
  ): Promise<number | null> {
    const id = a.scheduleId;
    const p = k.of(id);
    const keys = {
      runs: p.runs(id),
      runidx: p.runIndex(id),
      owedRuns: p.owedRuns,
      schedules: p.schedules,
      backfillOverrides: p.backfillOverrides(id),
    };
    const items = a.records.map((r) => ({
      values: {
        owedMember: r.owedMember,
        recordField: r.field,
        fireTime: r.fireAt,
        pairs: counted(patchArgs(r.patch).set),
      },
    }));
    const args = scriptArgs(OWED_DONE, keys, { scheduleId: id, historyLimit: a.historyLimit }, items);
    const written = Number(await this.#caller.run(OWED_DONE, args));
    return written === NO_SCHEDULE ? null : written;
  }

  /**
   * `owed-take-2`: on partition `k`, at most `max` owed occurrences past their time, each for `leaseMs`
   * more: the time they were given (Redis ms), and each one's member and definition.
   */
  async owedTake(
    k: Keys,
    a: { leaseMs: number; max: number },
  ): Promise<{ owedBy: number; taken: { member: string; definition: string }[] }> {
    const keys = { owedRuns: k.owedRuns, schedules: k.schedules };
    const [given, ...out] = (await this.#caller.run(
      OWED_TAKE,
      scriptArgs(OWED_TAKE, keys, { lease: a.leaseMs, most: a.max }),
    )) as [number, ...string[]];
    const taken: { member: string; definition: string }[] = [];
    for (let i = 0; i + 1 < out.length; i += 2) taken.push({ member: out[i]!, definition: out[i + 1]! });
    return { owedBy: Number(given), taken };
  }

  /**
   * `owed-release-3`: give back occurrences of schedule `scheduleId` taken and not enqueued: out of the
   * owed set, the ledger and the overrides together. How many owed members were struck.
   */
  async owedRelease(
    k: Keys,
    a: { scheduleId: string; owed: readonly { member: string; fireAt: number }[] },
  ): Promise<number> {
    const id = a.scheduleId;
    const p = k.of(id);
    const keys = {
      owedRuns: p.owedRuns,
      backfills: p.backfills(id),
      backfillOverrides: p.backfillOverrides(id),
    };
    const items = a.owed.map((o) => ({ values: { owedMember: o.member, fireTime: o.fireAt } }));
    return Number(await this.#caller.run(OWED_RELEASE, scriptArgs(OWED_RELEASE, keys, {}, items)));
  }

  /**
   * `owed-keep-1`: of owed occurrences (one partition), each with the time its taker was given, keep
   * those still owed at that time for `leaseMs` more; the members no longer the taker's.
   */
  async owedKeep(
    k: Keys,
    a: { leaseMs: number; owed: readonly { member: string; given: number }[] },
  ): Promise<string[]> {
    const items = a.owed.map((o) => ({ values: { owedMember: o.member, given: o.given } }));
    const args = scriptArgs(OWED_KEEP, { owedRuns: k.owedRuns }, { lease: a.leaseMs }, items);
    return ((await this.#caller.run(OWED_KEEP, args)) as unknown[]).map(String);
  }

  /** `manual-run-5`: a manual run's `enqueued` record and its `trigger` audit entry. */
  async manualRun(
    k: Keys,
    a: {
      scheduleId: string;
      field: string;
      fireAt: number;
      historyLimit: number;
      jobId: string;
      patch: Patch;
    } & AuditBy,
  ): Promise<void> {
    const id = a.scheduleId;
    const p = k.of(id);
    const keys = {
      runs: p.runs(id),
      runidx: p.runIndex(id),
      counts: p.counts(id),
      totals: p.totals,
      audit: p.audit(id),
    };
    const argv = {
      field: a.field,
      score: a.fireAt,
      scheduleId: id,
      historyLimit: a.historyLimit,
      ...auditSlots(a),
      jobId: a.jobId,
      pairs: counted(patchArgs(a.patch).set),
    };
    await this.#caller.run(MANUAL_RUN, scriptArgs(MANUAL_RUN, keys, argv));
  }

  /**
   * `unstage-2`: remove a schedule's staged jobs (id `jobIdPrefix` and a fire time) still delayed in
   * BullMQ, due within `windowMs`; only the one at `fireAt` when given. The fire times removed.
   */
  async unstage(a: {
    delayed: string;
    events: string;
    jobBase: string;
    jobIdPrefix: string;
    windowMs: number;
    fireAt: number | undefined;
    offsetMs?: number;
  }): Promise<number[]> {
    const argv = {
      keyPrefix: a.jobBase,
      jobIdPrefix: a.jobIdPrefix,
      window: String(a.windowMs),
      fireTime: a.fireAt === undefined ? '' : String(a.fireAt),
      offset: String(a.offsetMs ?? 0),
    };
    const removed = (await this.#caller.run(
      UNSTAGE,
      scriptArgs(UNSTAGE, { delayed: a.delayed, events: a.events }, argv),
    )) as string[];
    return removed.map(Number);
  }

  /**
   * `unstarted-since-n`: for each BullMQ job hash key (all of one queue), its `timestamp` when no worker
   * took it yet (no `processedOn`), or null (gone, never written, or started).
   */
  async unstartedSince(jobKeys: readonly string[]): Promise<(number | null)[]> {
    if (jobKeys.length === 0) return [];
    const items = jobKeys.map((job) => ({ keys: { job }, values: {} }));
    const answers = (await this.#caller.run(
      UNSTARTED_SINCE,
      scriptArgs(UNSTARTED_SINCE, {}, {}, items),
    )) as string[];
    return answers.map((t) => (t === '' ? null : Number(t)));
  }

  /**
   * `finished-jobs-1`: up to `count` entries of a queue's event stream after `after`: the last id read,
   * how many were read, and the `completed` / `failed` events of jobs whose ids start with `jobIdPrefix`,
   * each with its job hash's outcome fields (8 values per event; see the script's header).
   */
  async finishedJobs(a: {
    events: string;
    jobBase: string;
    after: string;
    count: number;
    jobIdPrefix: string;
  }): Promise<(string | null | number)[]> {
    const argv = { keyPrefix: a.jobBase, after: a.after, count: String(a.count), jobIdPrefix: a.jobIdPrefix };
    return (await this.#caller.run(FINISHED_JOBS, scriptArgs(FINISHED_JOBS, { events: a.events }, argv))) as (
      | string
      | null
      | number
    )[];
  }

  /** `handover-scheduler-2`: hand a BullMQ job scheduler over while its pending job is the one at `handoverAt`. */
  async handoverScheduler(a: {
    repeatKey: string;
    schedulerId: string;
    handoverAt: number | undefined;
  }): Promise<HandOver> {
    const keys = { repeat: a.repeatKey, scheduler: `${a.repeatKey}:${a.schedulerId}` };
    const argv = { schedulerId: a.schedulerId, instant: String(a.handoverAt ?? '') };
    return codeName(
      HANDOVER_SCHEDULER,
      HandOverCode,
      await this.#caller.run(HANDOVER_SCHEDULER, scriptArgs(HANDOVER_SCHEDULER, keys, argv)),
    );
  }
}
