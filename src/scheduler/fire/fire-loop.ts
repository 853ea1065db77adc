import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Claim, ClaimResult } from '../../store/index.js';
import { leaveFleet, spreadOffsetMs, wakeWorkers } from '../../store/index.js';
import { refreshCalendars } from './calendar-plan.js';
import { ClaimRenewer } from './claim-renewer.js';
import { ClaimTimer } from './claim-timer.js';
import { DefinitionCache } from './definition-cache.js';
import { holdBack } from './fire-backpressure.js';
import { type FireClock, monotonicClock } from './fire-clock.js';
import {
  emptyFireStats,
  type FireLoopDeps,
  type FireLoopFootprint,
  type FireLoopStats,
  RESUBSCRIBED,
  uniqueBatches,
} from './fire-loop-types.js';
import { FleetShare } from './fleet-share.js';
import { OccurrenceEnqueuer } from './occurrence-enqueuer.js';
import { PendingOccurrences } from './pending-occurrences.js';
import { planClaims } from './plan-claims.js';
import { RecheckAhead } from './recheck-ahead.js';
import { RedisClock } from './redis-clock.js';
import { ReplicaAcker } from './replica-acker.js';
import { planLater } from './set-aside-plans.js';
import { StagedHere } from './staged-here.js';
import { StagedAnnouncer, StagedWaker, takeStageable, unstageAndRecord } from './staged-jobs.js';
import { StopNotices, stopInactive } from './stop-notices.js';

export type { FireHooks, FireLoopDeps, FireLoopFootprint, FireLoopStats } from './fire-loop-types.js';

/** Claim cycles one replica runs at once when batches come full (pipelining claim, enqueue, complete). */
const PARALLEL_CYCLES = 4;

/**
 * How far ahead claims reach at most (ms), whatever the recent claims took to plan (see `aheadMs`), unless
 * a quarter of the claim lease is longer; also the longest a claim cycle waits for a slow partition.
 */
export const MAX_HORIZON_MS = 1250;

/** While claims are in flight, the longest a replica goes without claiming (ms; see `runCycle`). */
const HELD_RECHECK_MS = 100;

/**
 * The timers and the claim → enqueue → complete cycle of one replica.
 *
 * Claims take what is due now or within `claimAheadMs`, at most every `claimAheadMs / 2` (sooner when
 * a batch comes full, or when an occurrence would otherwise be claimed less than 5 ms ahead).
 * Claimed occurrences wait here, ordered by fire time, behind one timer; each is enqueued when Redis's
 * clock, as `RedisClock` learns it from the claims' TIME (a lower bound: never early), reaches its
 * fire time. A batch is completed when all of its occurrences are enqueued, or at once when one of
 * them is due again within the claim horizon.
 */
export class FireLoop {
  readonly stats: FireLoopStats = emptyFireStats();
  /** This replica, as its records name it. */
  readonly replicaId = `${hostname()}:${process.pid}`;
  /** Claim tokens start with it, so that a claim in flight names its replica (see `schedule:why`). */
  private readonly replica = `${this.replicaId}/${randomBytes(4).toString('hex')}`;
  private seq = 0;
  private running = false;
  /** Recent time from a claim sent to its batch planned (ms, a decaying maximum; see `aheadMs`). */
  private prepMs = 0;
  /** The longest `prepMs` among the live replicas, as the last claim's answer told (see claim-6.lua). */
  private fleetPrepMs = 0;
  /** What this replica claimed lately, counted against its share of a burst. */
  private readonly fleet = new FleetShare();
  /** When the next claim starts. */
  private readonly claimTimer: ClaimTimer;
  /** Claim cycles in flight: a full batch starts the next claim while its own enqueue is still going. */
  private readonly cycles = new Set<Promise<void>>();
  private again = false;
  /** Redis's clock, learnt from each claim's TIME (never ahead of Redis). */
  private readonly clock: RedisClock;
  /** This process's monotonic clock and timers (a manual one in tests). */
  private readonly timers: FireClock;
  /** Claimed occurrences waiting for their fire time, by fire time. */
  private readonly pending: PendingOccurrences;
  /** Claimed occurrences waiting for an early backpressure look-up, then staged (`commitAhead`). */
  private readonly recheckAhead: RecheckAhead;
  /** Enqueues what comes due and completes the batches. */
  private readonly enqueuer: OccurrenceEnqueuer;
  /** Enqueues and completions in flight (awaited by `stop`). */
  private readonly work = new Set<Promise<void>>();
  private unsubscribe: (() => Promise<void>) | undefined;
  /** Parsed definitions by schedule id (bounded). */
  private readonly cache: DefinitionCache;
  /** Stop notices counted so far, and the latest one of each schedule that had one. */
  private readonly stops = new StopNotices();
  /** `fired` of the occurrences staged (committed to BullMQ ahead), announced at their fire time. */
  private readonly announcer: StagedAnnouncer;
  /** The jobs this replica added as delayed, until runnable: what a stop notice takes back. */
  private readonly staged = new StagedHere();
  /** Wakes a queue's workers when its staged jobs become due (see `StagedWaker`). */
  private readonly waker: StagedWaker;

  /** `replicaAcks`: WAIT after each enqueue's adds (see replica-acker.ts). */
  private readonly acker: ReplicaAcker | undefined;
  /** Extends the leases of the claims held here while they wait or are enqueued (see claim-renewer.ts). */
  private readonly renewer: ClaimRenewer;

  constructor(private readonly deps: FireLoopDeps) {
    const timers = (this.timers = deps.clock ?? monotonicClock);
    this.clock = new RedisClock(() => timers.now());
    this.announcer = new StagedAnnouncer((at) => this.clock.until(at), timers);
    this.waker = new StagedWaker(
      (at) => this.clock.until(at),
      timers,
      (queues) => void this.wakeQueues(queues),
    );
    this.cache = new DefinitionCache(deps.localTrigger, deps.logger, deps.calendars);
    const acks = deps.options.replicaAcks;
    this.acker = acks && new ReplicaAcker(acks, (q) => deps.queue(q), this.stats, deps.logger);
    this.renewer = new ClaimRenewer(
      deps.options.claimLeaseMs,
      (ids, token) => deps.store.renewClaims(ids, token, deps.options.claimLeaseMs),
      (err) =>
        deps.logger.warn({ err }, 'bullbeat: claim renewal failed; the claims may lapse and be taken over'),
      timers,
    );
    this.claimTimer = new ClaimTimer(
      deps.options,
      (late) => this.launch(late),
      () => this.aheadMs() - deps.options.claimAheadMs,
      timers,
    );
    this.enqueuer = new OccurrenceEnqueuer({
      deps,
      stats: this.stats,
      replicaId: this.replicaId,
      clock: this.clock,
      renewer: this.renewer,
      cache: this.cache,
      stops: this.stops,
      announcer: this.announcer,
      staged: this.staged,
      waker: this.waker,
      acker: this.acker,
      arm: (ms) => this.arm(ms),
      armFor: (due, now) => this.armFor(due, now),
      aheadMs: () => this.aheadMs(),
    });
    this.pending = new PendingOccurrences(this.clock, timers, (due, release) => {
      void this.track(this.enqueuer.enqueue(due, release).finally(release));
    });
    this.recheckAhead = new RecheckAhead(
      this.clock,
      timers,
      (items, now) => void this.track(this.enqueuer.enqueue(items, undefined, now)),
      (items) => this.pending.add(items),
    );
  }

  get footprint(): FireLoopFootprint {
    return {
      cachedDefinitions: this.cache.size,
      stopNotices: this.stops.size,
      pending: this.pending.length + this.recheckAhead.length,
      inFlight: this.cycles.size + this.work.size,
    };
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = await this.deps.subscribe((message) => {
      if (message.startsWith('stop:')) this.stopSchedule(message.slice('stop:'.length));
      else if (message === RESUBSCRIBED) void this.recheckHeld();
      else this.poke();
    });
    this.launch(0);
  }

  /** Stop claiming; enqueue and complete what is claimed already (at most `claimAheadMs` away). */
  async stop(): Promise<void> {
    this.running = false;
    this.claimTimer.stop();
    this.recheckAhead.flush();
    while (this.cycles.size > 0 || this.work.size > 0 || this.pending.length > 0) {
      const busy = [...this.cycles, ...this.work];
      if (busy.length > 0) await Promise.all(busy);
      else await new Promise((resolve) => this.timers.setTimeout(() => resolve(undefined), 1));
    }
    await this.announcer.drain();
    this.waker.stop();
    this.pending.clear();
    this.renewer.stop();
    await leaveFleet(this.deps.store, this.replica).catch(() => undefined);
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    await unsubscribe?.().catch(() => undefined);
  }

  /**
   * How far ahead claims reach: `claimAheadMs`, plus the time recent claims took from being sent to
   * being planned (the claim's round trip, decoding, planning and the backpressure look-up, which
   * grow with the size of a burst and with the load), so that a burst is planned before its fire
   * instant rather than after it. The whole is at most `MAX_HORIZON_MS` (or a quarter of the claim
   * lease if longer; held claims are renewed, so a horizon longer than the lease is safe), and none
   * with `claimAheadMs: 0` (claim only what is due).
   */
  private aheadMs(prepMs = Math.max(this.prepMs, this.fleetPrepMs)): number {
    const { claimAheadMs, claimLeaseMs } = this.deps.options;
    if (claimAheadMs === 0) return 0;
    const room = Math.max(0, Math.max(MAX_HORIZON_MS, Math.floor(claimLeaseMs / 4)) - claimAheadMs);
    return claimAheadMs + Math.min(room, Math.ceil(prepMs));
  }

  /** A claim took `ms` from being sent to being planned: keep a slowly decaying maximum of it. */
  private learnPrep(ms: number): void {
    this.prepMs = Math.max(ms, this.prepMs * 0.9);
  }

  /** Something became due (another process added or resumed a schedule): claim soon (pokes coalesce). */
  poke(): void {
    this.arm(0);
  }

  /**
   * A schedule was paused or removed (or orphaned): none of its occurrences claimed before now is
   * enqueued any more. Those waiting for their fire time are dropped at once, those still being
   * planned when they reach the enqueue (a claim held between its steps), and their claims are
   * completed without a run (a paused schedule stays out of `due`, a removed one's claim is gone).
   * One already being enqueued is not stopped.
   */
  stopSchedule(id: string): void {
    this.stops.record(id);
    this.announcer.drop(id);
    // staged by this replica while the notice travelled: out of BullMQ, unless promoted already
    const unstaged = this.unstageStopped(id);
    if (unstaged) {
      unstaged.catch((err) =>
        this.deps.logger.warn({ err, scheduleId: id }, 'bullbeat: could not unstage a stopped schedule'),
      );
    }
    this.cache.delete(id);
    const dropped = [...this.pending.drop(id), ...this.recheckAhead.drop(id)];
    for (const item of dropped) this.enqueuer.notRun(item);
    for (const batch of uniqueBatches(dropped)) {
      if (batch.left === 0) void this.track(this.enqueuer.complete(batch));
    }
  }

  /**
   * Take the delayed jobs this replica added for a stopped schedule back out of BullMQ, each looked up
   * by its job id (staged-here.ts); none remembered, no command. A replica that could not remember them
   * all searches the schedule's queue, as far as the fire-rate cap reaches.
   */
  private unstageStopped(id: string): Promise<unknown> | undefined {
    const { history } = this.deps;
    const mine = this.staged.take(id, this.clock.now());
    if (mine) {
      if (mine.length === 0) return undefined;
      return Promise.all(
        mine.map((j) =>
          unstageAndRecord(this.deps.queue(j.queue), history, id, j.fireAt, j.offsetMs, j.until),
        ),
      );
    }
    const def = this.cache.peek(id)?.def;
    if (def === undefined) return undefined;
    const queue = this.deps.queue(def.queue);
    const offset = spreadOffsetMs(id, def.spreadMs);
    return this.deps.store
      .fireBudgetReach()
      .then((reach) => unstageAndRecord(queue, history, id, undefined, offset, reach));
  }

  /**
   * The wake subscriber reconnected: a stop notice published while it was away was lost, so the
   * schedules of the occurrences waiting here for their fire time are read again (one read), and those
   * no longer active (paused, removed, orphaned, errored) are stopped as the notice would have. Without
   * it, a replica whose subscriber was reconnecting when a pause was published would enqueue an
   * occurrence it claimed ahead, due after the pause.
   */
  private async recheckHeld(): Promise<void> {
    this.poke();
    const ids = [...new Set([...this.pending.ids(), ...this.recheckAhead.ids(), ...this.announcer.ids()])];
    await stopInactive(ids, this.deps, (id) => this.stopSchedule(id));
  }

  /**
   * Write the marker of each of `queues` that BullMQ's own adds write for a job ready now, so that a
   * Worker waiting for the queue's next delayed job wakes at once (see `StagedWaker`). A failed write
   * leaves the Worker to its own wait.
   */
  private async wakeQueues(queues: readonly string[]): Promise<void> {
    await Promise.all(
      queues.map(async (name) => {
        try {
          const queue = this.deps.queue(name);
          // BullMQ's Redis backend hands out its ioredis client (as `unstage` takes it)
          const client = (await queue.getBackend().client) as unknown as Redis;
          await wakeWorkers(client, queue.keys.marker!);
        } catch (err) {
          this.deps.logger.debug({ err, queue: name }, 'bullbeat: could not wake the workers of a queue');
        }
      }),
    );
  }

  /** Start a claim now, unless as many as allowed are in flight (then the last one re-arms at 0). */
  private launch(wokeLateMs: number): void {
    if (!this.running) return;
    if (this.cycles.size >= PARALLEL_CYCLES) {
      this.again = true;
      return;
    }
    const cycle: Promise<void> = this.runCycle(wokeLateMs).finally(() => this.cycles.delete(cycle));
    this.cycles.add(cycle);
  }

  private arm(delayMs: number): void {
    if (this.running) this.claimTimer.arm(delayMs);
  }

  private armFor(due: number, now: number): void {
    if (this.running) this.claimTimer.armFor(due, now);
  }

  private async runCycle(wokeLateMs: number): Promise<void> {
    const { store, options } = this.deps;
    this.again = false;
    this.stats.cycles++;
    this.staged.tidy(this.clock.now());
    try {
      const token = `${this.replica}.${(this.seq++).toString(36)}`;
      const stopSeq = this.stops.seq;
      const sentAt = this.timers.now();
      // one of a fleet: a burst is shared, and every replica claims as far ahead as the furthest
      const fleet = this.fleet.member(this.replica, this.aheadMs(this.prepMs), options);
      const res = await store.claim(options.claimBatch, options.claimLeaseMs, token, this.aheadMs(), fleet);
      this.fleet.claimed(res);
      if (res.coalescedParked) this.enqueuer.coalescedParked(res.coalescedParked, res.now);
      if (res.fleet) this.fleetPrepMs = Math.max(0, res.fleet.aheadMs - options.claimAheadMs);
      this.clock.sync(res.now);
      this.claimTimer.claimed(res.now);
      for (const late of res.late ?? []) void this.acceptLate(late, token, stopSeq, sentAt);
      if (res.full ?? res.claims.length >= options.claimBatch) {
        this.launch(0); // more is due: claim the next batch while this one is planned and enqueued
      } else {
        if (res.nextDue !== null) this.armFor(res.nextDue, res.now);
        else this.arm(options.maxSleepMs);
        // Claims are in flight (another replica's, often): when it completes them, their schedules'
        // next occurrences go back to `due` at times this replica cannot know, and if it dies right
        // after, nobody claims them until this replica looks. So it looks again soon, not only when
        // the lease it saw would lapse: an occurrence left in `due` by a replica that died after its
        // completion is claimed within HELD_RECHECK_MS of its claim time.
        if (res.nextLease !== null) this.arm(Math.min(res.nextLease - res.now, HELD_RECHECK_MS));
      }
      if (res.claims.length === 0 && res.nextDue !== null && res.nextDue > res.now + options.claimAheadMs) {
        this.stats.earlyWakeups++;
      }
      this.deps.events.emit('wake', {
        early: res.claims.length === 0,
        lateMs: Math.max(0, Math.round(wokeLateMs)),
        claimed: res.claims.length,
      });
      if (res.claims.length > 0) await this.accept(res.claims, res.now, token, stopSeq, sentAt);
    } catch (err) {
      this.enqueuer.failed(err, 'bullbeat: fire loop error; retrying in 1 s');
      this.arm(1000);
    }
    if (this.again) {
      this.again = false;
      this.launch(0);
    }
  }

  /**
   * The claims of a partition that answered after its claim cycle went on without it (its master
   * slow, down or failing over; see partition-claims.ts): planned as a batch of their own. A failed
   * one was reported already; one answering after `stop` is left to lapse (claimed again elsewhere).
   */
  private async acceptLate(
    late: Promise<ClaimResult>,
    token: string,
    stopSeq: number,
    sentAt: number,
  ): Promise<void> {
    let res: ClaimResult;
    try {
      res = await late;
    } catch {
      return;
    }
    if (!this.running) return;
    this.clock.sync(res.now);
    if (res.coalescedParked) this.enqueuer.coalescedParked(res.coalescedParked, res.now);
    if (res.nextDue !== null) this.armFor(res.nextDue, res.now);
    if (res.full) this.arm(0);
    if (res.claims.length === 0) return;
    await this.track(this.accept(res.claims, res.now, token, stopSeq, sentAt)).catch((err) =>
      this.enqueuer.failed(err, 'bullbeat: fire loop error; retrying in 1 s'),
    );
  }

  /**
   * Plan one batch of claims: enqueue what is due now, keep the rest for its fire time. `setAside`: the
   * claims of an earlier batch set aside for their schedule's planning allowance, planned now.
   */
  private async accept(
    claims: readonly Claim[],
    now: number,
    token: string,
    stopSeq: number,
    sentAt: number,
    setAside = false,
  ): Promise<void> {
    if (!setAside) {
      this.stats.claimed += claims.length;
      await this.deps.hooks?.afterClaim?.(claims);
    }
    await refreshCalendars(this.deps.calendars, claims);
    const { batch, dueNow, later, planned, unplanned, poisoned, deferred, deferMs } = planClaims(
      claims,
      { now, token, stopSeq },
      this.cache,
      this.deps.options.triggerBudgetMs,
      this.stats,
      (claim, def, err) => this.enqueuer.markErrored(claim, def, err),
    );
    if (unplanned) this.arm(this.deps.options.claimLeaseMs);
    this.renewer.hold(batch, planned, sentAt); // leased from the claim, not from its planning
    if (deferred.length > 0) {
      this.stats.setAside += deferred.length;
      planLater(deferred, batch, deferMs, {
        timers: this.timers,
        renewer: this.renewer,
        running: () => this.running,
        plan: (again) =>
          void this.track(
            this.accept(again, Math.floor(this.clock.now()), token, stopSeq, this.timers.now(), true),
          ).catch((err) => this.enqueuer.failed(err, 'bullbeat: fire loop error; retrying in 1 s')),
      });
    }
    if (poisoned.length > 0) await Promise.all(poisoned);
    const held = await holdBack(dueNow, later, now, this.deps);
    this.learnPrep(this.timers.now() - sentAt);
    if (held.size > 0) {
      for (const list of [dueNow, later]) {
        const kept = list.filter((i) => !held.has(i));
        list.splice(0, list.length, ...kept);
      }
    }
    const staged = this.deps.options.commitAhead ? takeStageable(later, now) : [];
    if (this.deps.options.commitAhead) this.recheckAhead.take(later, this.aheadMs());
    this.pending.add(later);
    if (dueNow.length > 0 || staged.length > 0) {
      await Promise.all([this.enqueuer.enqueue(dueNow), this.enqueuer.enqueue(staged, undefined, now)]);
      if (staged.length > 0) this.learnPrep(this.timers.now() - sentAt); // staged before the instant
    } else if (batch.left === 0) await this.track(this.enqueuer.complete(batch));
  }

  private track(p: Promise<void>): Promise<void> {
    const tracked = p.finally(() => this.work.delete(tracked));
    this.work.add(tracked);
    return tracked;
  }
}
