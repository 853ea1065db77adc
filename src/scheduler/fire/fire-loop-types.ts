import type { EventEmitter } from 'node:events';
import type { JobsOptions, Queue } from 'bullmq';
import type { Logger } from 'pino';
import type {
  CalendarBook,
  Claim,
  RunHistory,
  ScheduleDefinition,
  ScheduleStore,
} from '../../store/index.js';
import type { OccurrenceTrace } from '../../tracing/fire-tracing.js';
import type { Trigger } from '../../triggers/trigger.js';
import type { ResolvedManagerOptions, SchedulerEvents } from '../contract/index.js';
import type { CachedDefinition } from './definition-cache.js';
import type { FireClock } from './fire-clock.js';
import type { OccurrencePlan } from './occurrence-planner.js';

/**
 * What the wake listeners hear when the subscriber reconnected: messages published while it was away
 * (a `stop:<id>`) were lost.
 */
export const RESUBSCRIBED = 'resubscribed';

/** Test hooks, called between the steps of a fire (a test kills the process in one), and the fire loop's clock. */
export interface FireHooks {
  afterClaim?: (claims: readonly Claim[]) => void | Promise<void>;
  /** Right before the add of claims checked still held (a stall here outlives that check). */
  beforeAdd?: (claims: readonly Claim[]) => void | Promise<void>;
  afterEnqueue?: (claims: readonly Claim[]) => void | Promise<void>;
  /** The fire loop's monotonic clock and timers: a manual one drives claiming and firing in a test. */
  clock?: FireClock;
}

/** What the fire loop needs from its manager. */
export interface FireLoopDeps {
  store: ScheduleStore;
  history: RunHistory;
  options: ResolvedManagerOptions;
  logger: Logger;
  events: EventEmitter<SchedulerEvents>;
  queue(name: string): Queue;
  /** The custom trigger this process defines for a schedule, if any. */
  localTrigger(id: string): Trigger | undefined;
  /** Job options of an occurrence, with bullbeat's retention floor applied. */
  jobOptions(def: ScheduleDefinition, jobId: string): JobsOptions;
  /** Subscribe to the wake channel (see `Keys.wake`); returns the unsubscribe. */
  subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>>;
  hooks?: FireHooks | undefined;
  /** This process's monotonic clock and timers (default: the real ones; a manual one in tests). */
  clock?: FireClock | undefined;
  /** The named calendars: brought to their current versions before the claims that use one are planned. */
  calendars?: CalendarBook | undefined;
}

/** Counters of this replica's fire loop. */
export interface FireLoopStats {
  cycles: number;
  claimed: number;
  enqueued: number;
  missed: number;
  /**
   * Occurrences not enqueued because the previous one still waited in its queue, or because a later one
   * was due already when they were claimed (backpressure).
   */
  coalesced: number;
  /**
   * The occurrences a claim handled beyond its own: when it came a period late or more, those coalesced
   * since the claimed one and the latest, which it enqueued (`claimed` counts the claim once). So
   * `claimed + coalescedParked = enqueued + coalesced - coalescedBehind` when nothing was missed.
   */
  coalescedBehind: number;
  /**
   * Occurrences of parked schedules that this replica's claims coalesced in Redis (park.ts): counted in
   * `coalesced` too, never claimed.
   */
  coalescedParked: number;
  reclaimed: number;
  /**
   * Claims set aside, unplanned, because their schedule's planning used up its allowance (a slow
   * trigger; see plan-allowance.ts), to be planned once it has refilled.
   */
  setAside: number;
  earlyWakeups: number;
  errors: number;
  /** `WAIT`s sent after enqueues (`replicaAcks`): one per queue per enqueue. */
  replicaWaits: number;
  /** Of those, the ones acknowledged by fewer replicas than asked within the timeout (the enqueue still completed). */
  underAcked: number;
  /** Schedules this replica marked errored (a trigger or a job BullMQ refused; see `ErroredEvent`). */
  errored: number;
}

/** One planned claim, from its claim to its completion. */
export interface Item {
  claim: Claim;
  cached: CachedDefinition;
  plan: OccurrencePlan;
  batch: Batch;
  /** The stop notices seen before its claim was made (see `stopSchedule`). */
  stopSeq: number;
  /** Enqueue lateness (estimated Redis time when its enqueue started, minus its fire time). */
  lateMs?: number;
  /**
   * Redis time when its enqueue started (the lower bound `RedisClock` gives, read before the job was
   * added): its record's `enqueuedAt`, never after a worker's Redis TIME of the run's start.
   */
  enqueuedAt?: number;
  /** How long the fire-rate cap (`maxFiresPerSecond`) delayed it past its fire time (ms). */
  capDelayMs?: number;
  /** Committed to BullMQ ahead of its fire time, as a delayed job (staged-jobs.ts). */
  staged?: boolean;
  /** Added as a delayed job (staged, spread or held to a fire-rate slot), runnable at this Redis ms. */
  delayedUntil?: number;
  /** Redis time of its claim (kept on its records). */
  claimedAt: number;
  /**
   * Backpressure: its schedule's previous job was waiting at the claim but had not waited long enough
   * to say its consumer is behind; looked at again when this occurrence is enqueued (coalesced if it
   * still waits then, and has waited `minWaitedMs`).
   */
  recheck?: { queue: string; jobId: string; minWaitedMs: number; dueAt?: number | undefined };
  /** Its spans while its job is added and its claim completed, when tracing is on (see src/tracing). */
  trace?: OccurrenceTrace;
}

/** The items of one claim call: they share its token, and are completed once enqueued. */
export interface Batch {
  token: string;
  /** Items not yet enqueued (or given up). */
  left: number;
  /** Items enqueued (or with nothing to enqueue), waiting for their completion. */
  ready: Item[];
}

/** What a test can see of a replica's memory: entries held per schedule. */
export interface FireLoopFootprint {
  cachedDefinitions: number;
  stopNotices: number;
  pending: number;
  /** Claim cycles, enqueues and completions in flight (0: the loop waits for a timer or a wake). */
  inFlight: number;
}

/** The fire time of an item that enqueues (its plan always has `enqueue`). */
export function fireTime(item: Item): number {
  return item.plan.enqueue?.fireAt ?? item.claim.fireAt;
}

/** The batches of some items, each once. */
export function uniqueBatches(items: readonly Item[]): Batch[] {
  return [...new Set(items.map((i) => i.batch))];
}

/** A replica's counters before its first cycle. */
export function emptyFireStats(): FireLoopStats {
  return {
    cycles: 0,
    claimed: 0,
    enqueued: 0,
    missed: 0,
    coalesced: 0,
    coalescedBehind: 0,
    coalescedParked: 0,
    reclaimed: 0,
    setAside: 0,
    earlyWakeups: 0,
    errors: 0,
    errored: 0,
    replicaWaits: 0,
    underAcked: 0,
  };
}
