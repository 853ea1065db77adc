/** What became of one occurrence of a schedule. */
export type RunOutcome =
  | 'enqueued' // on the queue, not started yet
  | 'running'
  | 'retrying' // an attempt failed; BullMQ will try again
  | 'succeeded'
  | 'failed' // the last attempt failed
  | 'cancelled' // stopped through its signal by a newer occurrence (overlap cancelOther)
  | 'skipped' // not run: `reason` says why (overlap, exclusion group, ...)
  | 'missed'; // due while no scheduler ran, and not caught up (misfire policy)

/** Why an occurrence was skipped or missed. */
export type SkipReason =
  | 'overlap' // maxInstances/coalesce/overlap skip: another run of this schedule was still going
  | 'buffer-full' // overlap bufferOne: another occurrence was already waiting for the running one
  | 'superseded' // overlap cancelOther: a newer occurrence started or waits
  | 'exclusion-group' // its exclusion group stayed busy past the bound (`group` names it)
  | 'group' // its group (`group` option) ran `max` runs already: overflow skip, or waited past the bound
  | 'misfire' // late, and the misfire policy did not run it
  | 'catch-up-window' // older than catchUpWindowMs
  | 'max-catch-up' // beyond maxCatchUp under misfire 'all'
  | 'paused' // claimed, then its schedule was paused or removed before it was enqueued
  | 'coalesced' // backpressure: another run stands for it (`coalescedBy` says why, `standIn` which)
  | 'ran-already'; // this add of its job was refused at its start: another add of the job id ran it

/**
 * Why backpressure coalesced an occurrence: its consumer was behind (the previous occurrence's job was
 * still waiting in the queue, having waited half a period or more), or the scheduler was (no replica
 * claimed it until a later occurrence was due too: the deployment was down, or overloaded). Never a
 * replica's death: a claim it held is taken over and run.
 */
export type CoalesceCause = 'consumer-behind' | 'scheduler-behind';

/** One occurrence, as kept in the bounded per-schedule history. Times are epoch ms. */
export interface RunRecord {
  scheduleId: string;
  /** The intended fire time; for a manual run, when it was asked for. */
  fireAt: number;
  /**
   * `manual` for `triggerNow`, `catch-up` for a late occurrence run by the misfire policy, `backfill`
   * for an occurrence of the past enqueued by `backfill()`.
   */
  kind: 'scheduled' | 'manual' | 'catch-up' | 'backfill';
  outcome: RunOutcome;
  reason?: SkipReason;
  /** Delayed by the fire-rate cap (`maxFiresPerSecond`): how long past its fire time (spread included) it became runnable (ms). */
  capDelayMs?: number;
  /** The exclusion group, when `reason` is `exclusion-group`; the group's key when `reason` is `group`. */
  group?: string;
  /** For `catch-up` under misfire `once`: how many missed occurrences this one run stands for. */
  coalesced?: number;
  /** Skipped as `coalesced`: why (see `CoalesceCause`). */
  coalescedBy?: CoalesceCause;
  /** Skipped as `coalesced`: the fire time of the occurrence whose run stands for this one. */
  standIn?: number;
  /**
   * The run that stands for occurrences backpressure coalesced: the first and last of them, how many,
   * and why (the latest coalescing written).
   */
  standsFor?: { from: number; to: number; count: number; cause: CoalesceCause };
  /**
   * The occurrences this run stands for that were coalesced because no replica claimed them in time
   * (`scheduler-behind`): how many ms before this run's fire time each was due (the newest 100). They
   * have no record of their own: a span is one record, and the read model (`history`, `why`, the
   * dashboard) shows each of them as a `skipped`/`coalesced` record naming this run.
   */
  coalescedBefore?: number[];
  /**
   * The occurrences this run stands for that were coalesced while its job waited in the queue
   * (`consumer-behind`): how many ms after this run's fire time each was due. Stored as one small field
   * per occurrence (`c<ms>`) in this record, written by each claim that coalesces one (no record of its
   * own, no index entry); the read model shows each as a `skipped`/`coalesced` record naming this run.
   */
  coalescedAfter?: number[];
  /** A manual run (or backfill) with what it carries overridden: `data`, `jobOptions` (comma-separated). */
  overrides?: string;
  /** Who overrode them (the audit actor of the trigger or backfill). */
  overriddenBy?: string;
  enqueuedAt?: number;
  startedAt?: number;
  finishedAt?: number;
  /**
   * The attempt this record is about (1 on the first): the one running, the one that ended the run,
   * or, while `retrying`, the one that just failed or was lost. An attempt lost with its worker counts.
   */
  attempts?: number;
  /** The error of that attempt (`retrying`, `failed`); a run that succeeded has none. */
  error?: string;
  /** Earlier attempts of this occurrence, oldest first, and how each ended. */
  previousAttempts?: PreviousAttempt[];
  /** The worker (`host:pid`) running, or that ran, that attempt. */
  worker?: string;
  /** The scheduler replica (`host:pid`) whose claim enqueued (or missed) this occurrence. */
  replica?: string;
  /** Redis time (ms) of that claim; later than `fireAt` by more than `claimAheadMs` when no replica took it sooner. */
  claimedAt?: number;
  /** True when an earlier claim lapsed (its replica died or stalled) and this claim took it over at `claimedAt`. */
  reclaimed?: boolean;
  queue?: string;
  jobId?: string;
  /**
   * `foreign` when the outcome was read from BullMQ (a consumer other than bullbeat's worker runtime
   * ran the job); absent when a bullbeat worker wrote it.
   */
  consumer?: 'foreign';
  /**
   * The fencing token of the run that wrote `running` (it increases with every run started of the
   * schedule): an outcome carrying another token is not written over it (a stalled, older run).
   */
  fencingToken?: number;
  /** The run waited for the one before it to end (overlap bufferOne, bufferAll, cancelOther). */
  buffered?: boolean;
}

/** One earlier attempt of an occurrence, kept in its record's `previousAttempts`. */
export interface PreviousAttempt {
  attempt: number;
  /** `failed`: it threw and BullMQ retried; `lost`: its worker died mid-run (killed, crashed). */
  outcome: 'failed' | 'lost';
  error: string;
  startedAt?: number;
  /** When it failed; for a lost attempt, when the loss was noticed (its job came back). */
  endedAt?: number;
  worker?: string;
}

/**
 * Decode a stored run record (the `runs:<id>` hash's values): the one reader of that JSON. A value that
 * is not a JSON object (a hand edit, a torn write) reads as null and is left out of histories.
 */
export function parseRecord(v: string | null | undefined): RunRecord | null {
  if (!v) return null;
  try {
    const r = JSON.parse(v) as unknown;
    return typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as RunRecord) : null;
  } catch {
    return null;
  }
}
