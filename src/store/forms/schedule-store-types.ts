import { instantProblem } from '../../triggers/instant-bounds.js';
import type { AuditActor } from './audit-entry.js';
import type { ScheduleDefinition } from './definition-schema.js';
import type { RunRecord } from './run-record.js';
import { decodeDefinition } from './schedule-definition.js';
import type { ScheduleState } from './schedule-state.js';

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
  /** Who makes the change, in its audit entry. Default: bullbeat itself. */
  by?: AuditActor;
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
  /**
   * Occurrences of parked schedules that the claim coalesced (their previous job still waiting; claim-6,
   * park.ts), counted and recorded there: the fire loop announces them.
   */
  coalescedParked?: { id: string; fireAt: number }[];
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
  /**
   * An occurrence was enqueued (its record is written, and it counts for `maxRuns`): the claimed one, or
   * the latest one due when the claim was a period late (`fireAt`; see `behindPlan`).
   */
  enqueued?: {
    /** The occurrence enqueued (the claimed one's fire time when omitted). */
    fireAt?: number;
    kind: 'scheduled' | 'catch-up';
    queue: string;
    jobId: string;
    /** Redis time when it was handed to BullMQ, read before the add (the completion's `now` without it). */
    enqueuedAt?: number;
    /** Who claimed it and when (see `RunRecord.replica`). */
    replica?: string;
    claimedAt?: number;
    reclaimed?: boolean;
    /** Delayed this long by the fire-rate cap (ms). */
    capDelayMs?: number;
    /**
     * More facts of the same record, written with it (one write, not two): the span a late claim's
     * occurrence stands for (`standsFor`, `coalescedBefore`).
     */
    also?: Partial<RunRecord>;
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
