import type { BullmqHandover, PauseNote, RunRecord, ScheduleErrorInfo } from '../store/index.js';
import type { ExpectedOccurrence } from './expected-occurrence.js';

/**
 * Why an occurrence did not run (or has not yet): the first missing link of its chain.
 * - `not-due-yet`, `not-started` (before `startAt`), `no-occurrence` (the trigger gives none by then)
 * - `paused` (the schedule is paused or orphaned now and nothing recorded it), `completed`, `errored`
 * - `no-replica`: due and not claimed for longer than a live replica would take (none alive, or none
 *   able to fire it); `replica-died`: claimed, its lease lapsed and no take-over yet
 * - `claimed`: a replica holds it and is enqueueing it
 * - `misfire`, `catch-up-window`, `max-catch-up`: missed by the misfire policy; `coalesced`: one
 *   catch-up run stood for it; `stopped`: claimed, then paused or removed before it was enqueued
 * - `overlap`, `exclusion-group`: skipped when it was about to start
 * - `no-worker`: waiting on a queue no worker consumes; `no-handler`: the worker that took it has no
 *   handler for its job name; `waiting`: on the queue, workers connected but none took it yet
 * - `running`, `retrying`, `failed`, `job-gone` (enqueued, its job no longer in BullMQ)
 * - `lost`: recorded running, but its worker died (its slot lease lapsed, or its job is no longer active)
 * - `unrecorded`: no record (older than the kept history, or the schedule was paused or re-timed then)
 * - `bullmq`: an imported schedule's occurrence left to BullMQ's job scheduler (`import:bullmq`'s
 *   hand-over): BullMQ runs it, bullbeat does not (its job not completed, or not found)
 * - `calendar`: the trigger's instant falls on a day its named calendar excludes (the calendar, its
 *   version and the day are named)
 */
export type WhyCause =
  | 'not-due-yet'
  | 'not-started'
  | 'no-occurrence'
  | 'paused'
  | 'completed'
  | 'errored'
  | 'no-replica'
  | 'replica-died'
  | 'claimed'
  | 'misfire'
  | 'catch-up-window'
  | 'max-catch-up'
  | 'coalesced'
  | 'stopped'
  | 'overlap'
  | 'exclusion-group'
  | 'group'
  | 'no-worker'
  | 'no-handler'
  | 'waiting'
  | 'running'
  | 'lost'
  | 'retrying'
  | 'failed'
  | 'job-gone'
  | 'unrecorded'
  | 'bullmq'
  | 'calendar';

/** One link of the chain, in order: trigger → claim → enqueue → worker → outcome. */
export interface WhyFact {
  link: 'trigger' | 'claim' | 'enqueue' | 'worker' | 'outcome' | 'schedule';
  /** When it happened (epoch ms), if known. */
  at?: number;
  text: string;
  /** False for a link that is missing or went wrong. */
  ok: boolean;
}

/** `schedule:why`'s answer. */
export interface WhyReport {
  scheduleId: string;
  name: string;
  queue: string;
  /** The instant asked about (`--at`; default: now). */
  at: number;
  /** Redis time when the answer was made. */
  now: number;
  /** The occurrence the trigger gives at or before `at`, or null. */
  occurrence: ExpectedOccurrence | null;
  /** Its fire time as recorded (with jitter), when a record was found. */
  fireAt: number | null;
  record: RunRecord | null;
  facts: WhyFact[];
  /** True when it ran to completion (succeeded). */
  ran: boolean;
  /** The first missing link, or null when it ran. */
  cause: WhyCause | null;
  /** One sentence: what happened, or what is missing. */
  summary: string;
}

/** What `explainOccurrence` reads: gathered from Redis and BullMQ by `whyDidntItRun`. */
export interface WhyFacts {
  now: number;
  at: number;
  schedule: {
    id: string;
    name: string;
    queue: string;
    /** `active`, `paused`, `completed`, `cancelled`, `errored`. */
    status: string;
    orphaned: boolean;
    error: ScheduleErrorInfo | null;
    /** While paused: why, who paused it and when (`pause(id, { note })`). */
    pauseNote?: PauseNote | null;
    /** Its next due time (active only). */
    nextRunTime: number | null;
    createdAt: number | null;
    misfire: string;
    misfireGraceMs: number;
    maxInstances: number;
    /** Its overlap policy (the rule its runs take their slot under). */
    overlap: string;
    startAt?: number | undefined;
    exclusionGroup?: string | undefined;
    /** The trigger in words. */
    trigger: string;
    /** False for a custom trigger that this process does not define (its instants are unknown here). */
    triggerKnown: boolean;
  };
  occurrence: ExpectedOccurrence | null;
  /** The kept history, newest first. */
  records: readonly RunRecord[];
  historyLimit: number;
  /** The schedule's claim in flight now, if any. */
  claim: { fireAt: number; replica: string | null; leaseExpiresAt: number } | null;
  /** The BullMQ job of the occurrence: its state, or null when it is gone; undefined when not looked up. */
  job?: { state: string; failedReason?: string | undefined } | null | undefined;
  /**
   * The run of a `running` record (undefined: not looked up): its slot lease (`lapsed` also when its
   * run takes one and none is left: dropped after lapsing; `none` when it takes none) and its BullMQ
   * job's state (null: the job is gone).
   */
  run?: { lease: 'live' | 'lapsed' | 'none'; jobState: string | null } | undefined;
  /** An imported schedule's hand-over from BullMQ's job scheduler (`import:bullmq`), or null. */
  handover?: BullmqHandover | null | undefined;
  /** BullMQ's own job of an occurrence left to it: its state, null when gone; undefined when not looked up. */
  bullmqJob?: { state: string } | null | undefined;
  /** BullMQ workers connected to the queue (undefined: not looked up). */
  queueWorkers?: number | undefined;
  /** A claim later than this after its fire time means no replica took it sooner (ms). */
  lateThresholdMs: number;
}
