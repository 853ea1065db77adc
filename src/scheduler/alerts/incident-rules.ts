import type { IncidentCause, RunRecord } from '../../store/index.js';
import { deadlineOf, formatDuration, type StoredExpectations } from '../../store/index.js';

/** A breach of one expectation: the occurrence that opens its incident, and why, in words. */
export interface Breach {
  occurrence: number;
  why: string;
}

/** What the rules read of one schedule. */
export interface ScheduleFacts {
  scheduleId: string;
  queue: string;
  expect: StoredExpectations;
  /** The zone `succeededBy`'s wall time is read in. */
  zone: string;
  /** Its newest records, newest first, coalesced spans shown per occurrence (`withSpans`). */
  records: readonly RunRecord[];
  /** Redis time (ms). */
  now: number;
  /** False when no worker consumes its queue; undefined when not known. */
  queueConsumed: boolean | undefined;
  /**
   * The fire time its trigger gives for the occurrence after the newest one fired or recorded, when
   * known: an occurrence never enqueued (every replica down or stalled) has no record to judge, so
   * `startedWithin` is judged against this expected time.
   */
  expectedFire?: number | undefined;
  /** How long past its fire time an occurrence may be enqueued on purpose (spread offset, jitter; ms). */
  enqueueGraceMs?: number | undefined;
}

/** How far back a missed occurrence still opens an incident. */
export const MISSED_LOOKBACK_MS = 3_600_000;

const iso = (t: number) => new Date(t).toISOString();
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const firstLine = (s: string | undefined) => (s ?? '').split('\n')[0]!.slice(0, 300);
/** The occurrences the fire loop owns (not manual runs, not backfills). */
const scheduled = (r: RunRecord) => r.kind === 'scheduled' || r.kind === 'catch-up';
const ran = (r: RunRecord) => r.outcome !== 'skipped' && r.outcome !== 'missed';

/**
 * The breaches of a schedule's expectations now, per cause: a breach opens its incident (if none is
 * open), none resolves the open one. Pure: every fact is given.
 */
export function breaches(f: ScheduleFacts): Map<IncidentCause, Breach | null> {
  const out = new Map<IncidentCause, Breach | null>();
  const e = f.expect;
  const runs = f.records.filter((r) => scheduled(r) && ran(r));
  if (e.startedWithinMs !== undefined) out.set('late', late(f, runs, e.startedWithinMs));
  if (e.succeededBy !== undefined) out.set('overdue', overdue(f, runs));
  if (e.maxDurationMs !== undefined) out.set('stuck', stuck(f, runs, e.maxDurationMs));
  if (e.failuresInARow !== undefined) out.set('failed', failed(runs, e.failuresInARow));
  out.set('missed', missed(f, runs));
  if (f.queueConsumed !== undefined) {
    out.set(
      'no-worker',
      f.queueConsumed
        ? null
        : {
            occurrence: f.now,
            why: `no worker consumes queue "${f.queue}": no process holds a BullMQ worker connection on it, so its occurrences wait there`,
          },
    );
  }
  return out;
}

function late(f: ScheduleFacts, runs: readonly RunRecord[], withinMs: number): Breach | null {
  const r = runs.find((x) => x.fireAt <= f.now - withinMs);
  if (!r || r.startedAt !== undefined || r.outcome !== 'enqueued') return neverEnqueued(f, withinMs);
  const where = r.jobId
    ? `its job ${r.jobId} waits in queue "${r.queue ?? f.queue}"`
    : 'it waits in its queue';
  const by = r.replica
    ? ` (enqueued by scheduler replica ${r.replica}${r.enqueuedAt ? ` at ${iso(r.enqueuedAt)}` : ''})`
    : '';
  const consumers =
    f.queueConsumed === false ? ': no worker consumes that queue' : ': no worker has taken it';
  return {
    occurrence: r.fireAt,
    why: `not started ${secs(f.now - r.fireAt)} after its fire time ${iso(r.fireAt)} (startedWithin ${formatDuration(withinMs)}); ${where}${by}${consumers}`,
  };
}

/** The expected occurrence, due `withinMs` ago (and its grace), of which there is no record at all. */
function neverEnqueued(f: ScheduleFacts, withinMs: number): Breach | null {
  const e = f.expectedFire;
  if (e === undefined || e > f.now - withinMs - (f.enqueueGraceMs ?? 0)) return null;
  if (f.records.some((x) => scheduled(x) && x.fireAt >= e)) return null;
  return {
    occurrence: e,
    why: `not started ${secs(f.now - e)} after its fire time ${iso(e)} (startedWithin ${formatDuration(withinMs)}); it was never enqueued: there is no record of it, so no scheduler replica has fired it (every replica down or stalled, or none reaches Redis)`,
  };
}

function overdue(f: ScheduleFacts, runs: readonly RunRecord[]): Breach | null {
  const by = f.expect.succeededBy!;
  const r = runs.find((x) => deadlineOf(by, x.fireAt, f.zone) <= f.now);
  if (!r || r.outcome === 'succeeded') return null;
  if (runs.some((x) => x.fireAt > r.fireAt && x.outcome === 'succeeded')) return null;
  const deadline = deadlineOf(by, r.fireAt, f.zone);
  const rule = 'at' in by ? `succeededBy ${by.at} ${f.zone}` : `succeededBy ${formatDuration(by.afterMs)}`;
  const state =
    r.outcome === 'failed'
      ? `its run failed: ${firstLine(r.error)}`
      : r.outcome === 'enqueued'
        ? 'its job has not started'
        : `its run is ${r.outcome}`;
  return {
    occurrence: r.fireAt,
    why: `the occurrence of ${iso(r.fireAt)} had not succeeded by ${iso(deadline)} (${rule}): ${state}`,
  };
}

function stuck(f: ScheduleFacts, runs: readonly RunRecord[], maxMs: number): Breach | null {
  const long = runs.filter(
    (r) => r.outcome === 'running' && r.startedAt !== undefined && f.now - r.startedAt > maxMs,
  );
  const r = long[long.length - 1];
  if (!r) return null;
  return {
    occurrence: r.fireAt,
    why: `the run of ${iso(r.fireAt)} has been running ${secs(f.now - r.startedAt!)} (maxDuration ${formatDuration(maxMs)})${r.worker ? ` on worker ${r.worker}` : ''}, started ${iso(r.startedAt!)}`,
  };
}

function failed(runs: readonly RunRecord[], inARow: number): Breach | null {
  const finished = runs.filter((r) => r.outcome === 'succeeded' || r.outcome === 'failed');
  const last = finished.slice(0, inARow);
  if (last.length < inARow || last.some((r) => r.outcome !== 'failed')) return null;
  const r = last[0]!;
  return {
    occurrence: r.fireAt,
    why: `${inARow} runs failed in a row (failuresInARow ${inARow}); the last, of ${iso(r.fireAt)}, failed${r.attempts ? ` after ${r.attempts} attempt(s)` : ''}: ${firstLine(r.error)}`,
  };
}

function missed(f: ScheduleFacts, runs: readonly RunRecord[]): Breach | null {
  const r = f.records.find(
    (x) =>
      scheduled(x) &&
      x.fireAt >= f.now - MISSED_LOOKBACK_MS &&
      (x.outcome === 'missed' || (x.reason === 'coalesced' && x.coalescedBy === 'scheduler-behind')),
  );
  if (!r) return null;
  // a later occurrence that started ends it
  if (runs.some((x) => x.fireAt > r.fireAt && x.startedAt !== undefined)) return null;
  const why =
    r.outcome === 'missed'
      ? `the occurrence of ${iso(r.fireAt)} was missed (${r.reason ?? 'misfire'}): no scheduler replica enqueued it in time and the misfire policy did not run it`
      : `the occurrence of ${iso(r.fireAt)} was coalesced into the run of ${iso(r.standIn ?? r.fireAt)}: no scheduler replica claimed it in time`;
  return { occurrence: r.fireAt, why };
}

/** Why an open incident of `cause` ended, in words. */
export function resolvedWhy(cause: IncidentCause, f: ScheduleFacts): string {
  const newest = f.records.find((r) => scheduled(r) && r.startedAt !== undefined);
  const at = newest ? ` (occurrence ${iso(newest.fireAt)}, ${newest.outcome})` : '';
  switch (cause) {
    case 'late':
      return `a run started${at}`;
    case 'overdue':
      return `a run succeeded${at}`;
    case 'stuck':
      return `the run is no longer running${at}`;
    case 'failed':
      return `a run succeeded${at}`;
    case 'missed':
      return `a later occurrence started${at}`;
    case 'no-worker':
      return `a worker consumes queue "${f.queue}" again`;
    default:
      return 'the condition ended';
  }
}
