/** An occurrence put on its queue. */
export interface FiredEvent {
  scheduleId: string;
  name: string;
  queue: string;
  fireAt: number;
  kind: 'scheduled' | 'manual' | 'catch-up' | 'backfill';
  jobId: string;
  /** Redis time of the enqueue minus fireAt (ms). */
  lateMs: number;
}

/**
 * Occurrences recorded as missed (misfire policy, catch-up window, maxCatchUp), or `coalesced`: not
 * enqueued because the schedule's previous occurrence was still waiting in its queue, or because a later
 * one was due already when they were claimed (backpressure).
 */
export interface MissedEvent {
  scheduleId: string;
  name: string;
  reason: 'misfire' | 'catch-up-window' | 'max-catch-up' | 'paused' | 'coalesced';
  /** How many occurrences. */
  count: number;
  /** The newest of them (at most 100). */
  fireAts: number[];
}

/** An occurrence not run (emitted by workers: overlap, exclusion group). */
export interface SkippedEvent {
  scheduleId: string;
  name?: string;
  fireAt: number;
  reason: string;
  group?: string;
}

/** A run failed (emitted by workers), or the fire loop hit an error (`scheduleId` absent). */
export interface FailedEvent {
  scheduleId?: string;
  name?: string;
  fireAt?: number;
  error: Error;
}

/**
 * A schedule became errored: its trigger threw or answered an invalid time, its definition cannot
 * be read, or BullMQ refused its job. It fires no more until it is re-defined, resumed or removed.
 */
export interface ErroredEvent {
  scheduleId: string;
  name?: string;
  /** The occurrence it failed on (null: at definition). */
  fireAt: number | null;
  reason: string;
  error: Error;
}

/** An occurrence enqueued later than `lateThresholdMs` (but within its misfire grace). */
export interface LateEvent {
  scheduleId: string;
  name: string;
  fireAt: number;
  lateMs: number;
}

/** The fire loop woke up: `early` when nothing was due yet, `lateMs` past the time it was armed for. */
export interface WakeEvent {
  early: boolean;
  lateMs: number;
  claimed: number;
}

/**
 * A schedule paused itself after `pauseOnFailure` final failures in a row (emitted by the worker
 * that ran the last one, in its process: the manager of a `bullbeat dev` or a worker that has it).
 */
export type { PausedOnFailureEvent } from '../../queue/run-results.js';
/** An enqueueing backfill's progress (after each batch; `done` on the last). */
export type { BackfillProgress as BackfillEvent } from './backfill-options.js';

import type { IncidentCause } from '../../store/index.js';
import type { BackfillProgress } from './backfill-options.js';

/** The manager's typed events. */
/** An incident this replica opened or resolved (docs/being-told.md). */
export interface IncidentEvent {
  op: 'opened' | 'resolved';
  /** The incident's id (`inc-<n>`). */
  id: string;
  cause: IncidentCause;
  scheduleId: string;
}

export interface SchedulerEvents {
  fired: [FiredEvent];
  missed: [MissedEvent];
  skipped: [SkippedEvent];
  failed: [FailedEvent];
  late: [LateEvent];
  wake: [WakeEvent];
  errored: [ErroredEvent];
  pausedOnFailure: [import('../../queue/run-results.js').PausedOnFailureEvent];
  backfill: [BackfillProgress];
  incident: [IncidentEvent];
}
