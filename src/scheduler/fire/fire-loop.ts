import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { leaveFleet } from '../../store/fleet.js';
import { jobDataFor, occurrenceJobId } from '../../store/job-payload.js';
import type { ScheduleDefinition } from '../../store/schedule-definition.js';
import type { Claim, ClaimResult } from '../../store/schedule-store.js';
import * as occurrenceTrace from '../../tracing/fire-tracing.js';
import { withTimeBudget } from '../../triggers/time-budget.js';
import { addBulkByQueue, type BulkJob } from './add-bulk-isolated.js';
import { ClaimRenewer } from './claim-renewer.js';
import { ClaimTimer } from './claim-timer.js';
import { type CachedDefinition, DefinitionCache } from './definition-cache.js';
import { holdBack, holdBackWhenDue } from './fire-backpressure.js';
import { type FireClock, monotonicClock } from './fire-clock.js';
import { markClaimErrored } from './fire-errors.js';
import {
  type Batch,
  type FireLoopDeps,
  type FireLoopFootprint,
  type FireLoopStats,
  type Item,
  RESUBSCRIBED,
} from './fire-loop-types.js';
import { announce, completionOf } from './fire-records.js';
import { FleetShare } from './fleet-share.js';
import { type OccurrencePlan, planOccurrence } from './occurrence-planner.js';
import { RedisClock } from './redis-clock.js';
import { ReplicaAcker } from './replica-acker.js';
import {
  StagedAnnouncer,
  stagedJobOptions,
  takeStageable,
  unstage,
  unstageAndRecord,
} from './staged-jobs.js';
import { StopNotices } from './stop-notices.js';

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
  readonly stats: FireLoopStats = {
    cycles: 0,
    claimed: 0,
    enqueued: 0,
    missed: 0,
    coalesced: 0,
    coalescedBehind: 0,
    reclaimed: 0,
    earlyWakeups: 0,
    errors: 0,
    errored: 0,
    replicaWaits: 0,
    underAcked: 0,
  };
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
  private pending: Item[] = [];
  private fireTimer: unknown;
  /** The fire time (Redis ms) the fire timer is armed for. */
  private fireArmedFor: number | undefined;
  /** An enqueue of the fire timer is in flight; `tickAgain`: the timer went off meanwhile. */
  private ticking = false;
  private tickAgain = false;
  /** Enqueues and completions in flight (awaited by `stop`). */
  private readonly work = new Set<Promise<void>>();
  private unsubscribe: (() => Promise<void>) | undefined;
  /** Parsed definitions by schedule id (bounded). */
  private readonly cache: DefinitionCache;
  /** Stop notices counted so far, and the latest one of each schedule that had one. */
  private readonly stops = new StopNotices();
  /** `fired` of the occurrences staged (committed to BullMQ ahead), announced at their fire time. */
  private readonly announcer = new StagedAnnouncer((at) => this.clock.until(at));

  /** `replicaAcks`: WAIT after each enqueue's adds (see replica-acker.ts). */
  private readonly acker: ReplicaAcker | undefined;
  /** Extends the leases of the claims held here while they wait or are enqueued (see claim-renewer.ts). */
  private readonly renewer: ClaimRenewer;

  constructor(private readonly deps: FireLoopDeps) {
    const timers = (this.timers = deps.clock ?? monotonicClock);
    this.clock = new RedisClock(() => timers.now());
    this.cache = new DefinitionCache(deps.localTrigger, deps.logger);
    const acks = deps.options.replicaAcks;
    this.acker = acks && new ReplicaAcker(acks, (q) => deps.queue(q), this.stats, deps.logger);
    this.renewer = new ClaimRenewer(
      deps.options.claimLeaseMs,
      (ids, token) => deps.store.renewClaims(ids, token, deps.options.claimLeaseMs),
      (err) =>
        deps.logger.warn({ err }, 'bullbeat: claim renewal failed; the claims may lapse and be taken over'),
      () => timers.now(),
    );
    this.claimTimer = new ClaimTimer(
      deps.options,
      (late) => this.launch(late),
      () => this.aheadMs() - deps.options.claimAheadMs,
      timers,
    );
  }

  get footprint(): FireLoopFootprint {
    return {
      cachedDefinitions: this.cache.size,
      stopNotices: this.stops.size,
      pending: this.pending.length,
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
    while (this.cycles.size > 0 || this.work.size > 0 || this.pending.length > 0) {
      const busy = [...this.cycles, ...this.work];
      if (busy.length > 0) await Promise.all(busy);
      else await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await this.announcer.drain();
    if (this.fireTimer) this.timers.clearTimeout(this.fireTimer);
    this.fireTimer = undefined;
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
    const queue = this.cache.peek(id)?.def.queue;
    if (queue !== undefined && this.deps.options.commitAhead) {
      // staged by this replica while the notice travelled: out of BullMQ, unless promoted already
      unstageAndRecord(this.deps.queue(queue), this.deps.history, id).catch((err) =>
        this.deps.logger.warn({ err, scheduleId: id }, 'bullbeat: could not unstage a stopped schedule'),
      );
    }
    this.cache.delete(id);
    const dropped = this.pending.filter((i) => i.claim.id === id);
    if (dropped.length === 0) return;
    this.pending = this.pending.filter((i) => i.claim.id !== id);
    for (const item of dropped) this.notRun(item);
    for (const batch of uniqueBatches(dropped)) {
      if (batch.left === 0) void this.track(this.complete(batch));
    }
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
    const ids = [...new Set([...this.pending.map((i) => i.claim.id), ...this.announcer.ids()])];
    if (ids.length === 0) return;
    try {
      const rows = await this.deps.store.getMany(ids);
      const active = new Set(rows.filter((r) => r.state.status === 'a').map((r) => r.def.id));
      for (const id of ids) if (!active.has(id)) this.stopSchedule(id);
    } catch (err) {
      this.deps.logger.warn({ err }, 'bullbeat: could not re-read held schedules after a reconnect');
    }
  }

  /** An occurrence of a schedule stopped after its claim: it is not enqueued, and is recorded as missed. */
  private notRun(item: Item): void {
    const { enqueue, ...rest } = item.plan;
    item.plan = enqueue
      ? { ...rest, missed: [...rest.missed, { fireAt: enqueue.fireAt, reason: 'paused' }] }
      : rest;
    item.batch.left--;
    item.batch.ready.push(item);
  }

  /** True when the schedule of `item` was stopped after the item was claimed. */
  private stoppedSinceClaim(item: Item): boolean {
    return this.stops.stoppedSince(item.claim.id, item.stopSeq);
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
    try {
      const token = `${this.replica}.${(this.seq++).toString(36)}`;
      const stopSeq = this.stops.seq;
      const sentAt = this.timers.now();
      // one of a fleet: a burst is shared, and every replica claims as far ahead as the furthest
      const fleet = this.fleet.member(this.replica, this.aheadMs(this.prepMs), options);
      const res = await store.claim(options.claimBatch, options.claimLeaseMs, token, this.aheadMs(), fleet);
      this.fleet.claimed(res);
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
      this.failed(err, 'bullbeat: fire loop error; retrying in 1 s');
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
    if (res.nextDue !== null) this.armFor(res.nextDue, res.now);
    if (res.full) this.arm(0);
    if (res.claims.length === 0) return;
    await this.track(this.accept(res.claims, res.now, token, stopSeq, sentAt)).catch((err) =>
      this.failed(err, 'bullbeat: fire loop error; retrying in 1 s'),
    );
  }

  /** Plan one batch of claims: enqueue what is due now, keep the rest for its fire time. */
  private async accept(
    claims: readonly Claim[],
    now: number,
    token: string,
    stopSeq: number,
    sentAt: number,
  ): Promise<void> {
    this.stats.claimed += claims.length;
    await this.deps.hooks?.afterClaim?.(claims);
    const batch: Batch = { token, left: 0, ready: [] };
    const dueNow: Item[] = [];
    const later: Item[] = [];
    let unplanned = false;
    const planned: string[] = [];
    const poisoned: Promise<void>[] = [];
    for (const claim of claims) {
      if (claim.reclaimed) this.stats.reclaimed++;
      let cached: CachedDefinition | undefined;
      let plan: OccurrencePlan;
      try {
        // one claim that cannot be planned (a bad definition, a trigger that throws or answers an
        // invalid time) is marked errored; the rest of the batch goes on
        cached = this.cache.load(claim);
        if (!cached) {
          unplanned = true; // left claimed: the lease lapses and a replica that can fire it takes over
          continue;
        }
        const { def, trigger } = cached;
        const fired = claim.state?.fired ?? 0;
        // a plan that overruns the trigger budget throws (TriggerBudgetError): errored alone, below
        plan = withTimeBudget(this.deps.options.triggerBudgetMs, () =>
          planOccurrence({ def, trigger, fireAt: claim.fireAt, now, fired }),
        );
      } catch (err) {
        poisoned.push(this.markErrored(claim, cached?.def, err));
        continue;
      }
      const item: Item = { claim, cached, plan, batch, stopSeq, claimedAt: now };
      planned.push(claim.id);
      if (!plan.enqueue) batch.ready.push(item);
      else {
        batch.left++;
        (plan.enqueue.fireAt > now ? later : dueNow).push(item);
      }
    }
    if (unplanned) this.arm(this.deps.options.claimLeaseMs);
    this.renewer.hold(batch, planned, sentAt); // leased from the claim, not from its planning
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
    if (later.length > 0) {
      const from = this.pending.length;
      this.pending.push(...later);
      for (let i = Math.max(1, from); i < this.pending.length; i++) {
        if (fireTime(this.pending[i]!) < fireTime(this.pending[i - 1]!)) {
          this.pending.sort((a, b) => fireTime(a) - fireTime(b));
          break;
        }
      }
      this.armFire();
    }
    if (dueNow.length > 0 || staged.length > 0) {
      await Promise.all([this.enqueue(dueNow), this.enqueue(staged, undefined, now)]);
      if (staged.length > 0) this.learnPrep(this.timers.now() - sentAt); // staged before the instant
    } else if (batch.left === 0) await this.track(this.complete(batch));
  }

  /** Arm the fire timer for the earliest pending occurrence. */
  private armFire(): void {
    const first = this.pending[0];
    if (!first) return;
    const at = fireTime(first);
    if (this.fireTimer && this.fireArmedFor !== undefined && this.fireArmedFor <= at) return;
    if (this.fireTimer) this.timers.clearTimeout(this.fireTimer);
    this.fireArmedFor = at;
    this.fireTimer = this.timers.setTimeout(
      () => this.fireDue(),
      Math.max(0, Math.ceil(this.clock.until(at))),
    );
  }

  /**
   * The fire timer: enqueue every pending occurrence whose time has come. While one such enqueue is in
   * flight, the next waits for it and takes all that came due meanwhile: under load, batches grow
   * with Redis's latency instead of queueing one small `addBulk` per millisecond.
   */
  private fireDue(): void {
    this.fireTimer = undefined;
    this.fireArmedFor = undefined;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    const now = this.clock.now();
    let n = 0;
    while (n < this.pending.length && fireTime(this.pending[n]!) <= now) n++;
    if (n > 0) {
      this.ticking = true;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.ticking = false;
        if (this.tickAgain) {
          this.tickAgain = false;
          this.fireDue();
        }
      };
      void this.track(this.enqueue(this.pending.splice(0, n), release).finally(release));
    }
    this.armFire();
  }

  private track(p: Promise<void>): Promise<void> {
    const tracked = p.finally(() => this.work.delete(tracked));
    this.work.add(tracked);
    return tracked;
  }

  /**
   * Enqueue occurrences (one `addBulk` per queue), then complete the batches they finish. `added`: the
   * adds are done (with `replicaAcks`, the next enqueue of the fire timer need not wait for this one's
   * WAIT and completion). `stagedAt`: committed ahead, as delayed jobs (the claim's Redis time).
   */
  private async enqueue(all: Item[], added?: () => void, stagedAt?: number): Promise<void> {
    if (all.length === 0) return;
    const { hooks } = this.deps;
    const startedAt = this.clock.now();
    const stopped = new Set<Item>();
    let items = all;
    const poisoned: Promise<void>[] = [];
    try {
      const coalesced = await holdBackWhenDue(items, Math.floor(this.clock.now()), this.deps);
      if (coalesced.size > 0) items = items.filter((i) => !coalesced.has(i));
      // A reclaimed occurrence whose record shows it reached a worker is not added again (its job
      // may be gone already under removeOnComplete). Their records are read at once: one at a time,
      // the take-over of a dead replica's hundreds of claims made the occurrences after them late.
      const started = await this.startedAlready(items);
      const byQueue = new Map<string, { tag: Item; job: BulkJob }[]>();
      for (const item of items) {
        const { cached } = item;
        if (this.stoppedSinceClaim(item)) {
          stopped.add(item);
          continue;
        }
        const fireAt = fireTime(item);
        item.lateMs = stagedAt === undefined ? Math.round(startedAt - fireAt) : 0;
        item.enqueuedAt = Math.floor(startedAt);
        if (stagedAt !== undefined) item.staged = true;
        if (started.has(item)) continue;
        const def = cached.def;
        const data = jobDataFor(def, fireAt, item.plan.enqueue!.kind, this.deps.options.prefix);
        let list = byQueue.get(def.queue);
        if (!list) byQueue.set(def.queue, (list = []));
        cached.opts ??= this.deps.jobOptions(def, '');
        const jobId = occurrenceJobId(def.id, fireAt);
        item.trace = occurrenceTrace.start(item, def, fireAt, jobId, this.replicaId);
        const opts = occurrenceTrace.carry({ ...cached.opts, jobId }, item.trace);
        if (stagedAt !== undefined) Object.assign(opts, stagedJobOptions(opts, fireAt, stagedAt));
        list.push({ tag: item, job: { name: def.name, data, opts } });
      }
      // A job BullMQ refuses (its options, its size) is isolated and its schedule errored; the
      // others of its queue still go. A connection failure throws: nothing is blamed.
      const refused = await addBulkByQueue(byQueue, (q) => this.deps.queue(q));
      occurrenceTrace.added(items, refused);
      // replicaAcks: the adds are on the queues' replicas before any completion says "enqueued"
      if (this.acker) {
        added?.();
        await this.acker.wait([...byQueue.keys()]);
      }
      const out = new Set(refused.map((r) => r.tag));
      if (out.size > 0) items = items.filter((i) => !out.has(i));
      for (const { tag: item, err } of refused) {
        item.batch.left--;
        this.renewer.release(item.batch, [item.claim.id]);
        poisoned.push(this.markErrored(item.claim, item.cached.def, err));
      }
      if (stagedAt !== undefined) await this.unstageStopped(items, stopped);
      await hooks?.afterEnqueue?.(items.map((i) => i.claim));
    } catch (err) {
      // Not completed: each claim's lease lapses and it is claimed again (here or by another replica).
      occurrenceTrace.failed(items, err);
      this.failed(err, 'bullbeat: enqueue failed; the occurrences are claimed again when their lease lapses');
      for (const item of items) {
        item.batch.left--;
        this.renewer.release(item.batch, [item.claim.id]);
      }
      this.arm(this.deps.options.claimLeaseMs);
      await Promise.all(poisoned);
      await Promise.all(uniqueBatches(all).map((b) => (b.left === 0 ? this.complete(b) : undefined)));
      return;
    }
    await Promise.all(poisoned);
    const horizon = this.clock.now() + this.aheadMs();
    const urgent = new Set<Batch>();
    for (const item of items) {
      if (stopped.has(item)) {
        this.notRun(item);
        continue;
      }
      item.batch.left--;
      item.batch.ready.push(item);
      const next = item.plan.next;
      if (next !== null && next <= horizon) urgent.add(item.batch);
    }
    // A batch completes once all its occurrences are enqueued, or now if one is due again soon.
    await Promise.all(
      uniqueBatches(all).map((b) => (b.left === 0 || urgent.has(b) ? this.complete(b) : undefined)),
    );
  }

  /**
   * Staged items whose schedule was stopped while they were being added (the notice came after the
   * check above): taken out of BullMQ again, and not run, unless BullMQ promoted them already.
   */
  private async unstageStopped(items: readonly Item[], stopped: Set<Item>): Promise<void> {
    const late = items.filter((i) => !stopped.has(i) && this.stoppedSinceClaim(i));
    await Promise.all(
      late.map(async (i) => {
        const q = this.deps.queue(i.cached.def.queue);
        if ((await unstage(q, i.claim.id, fireTime(i)).catch(() => [])).length > 0) stopped.add(i);
      }),
    );
  }

  /** The reclaimed items whose record shows a worker started them already (their records read at once). */
  private async startedAlready(items: readonly Item[]): Promise<Set<Item>> {
    const reclaimed = items.filter((i) => i.claim.reclaimed);
    if (reclaimed.length === 0) return new Set();
    const records = await Promise.all(
      reclaimed.map((i) => this.deps.history.get(i.claim.id, i.claim.fireAt)),
    );
    return new Set(
      reclaimed.filter((_, n) => {
        const outcome = records[n]?.outcome;
        return outcome !== undefined && outcome !== 'enqueued';
      }),
    );
  }

  /** Complete the ready items of a batch: records, run counts, and each schedule's next due time. */
  private async complete(batch: Batch): Promise<void> {
    const items = batch.ready.splice(0);
    if (items.length === 0) return;
    const limit = this.deps.options.historyLimit;
    const completions = items.map((item) =>
      completionOf(
        item.claim,
        item.cached.def,
        item.plan,
        limit,
        { replica: this.replicaId, claimedAt: item.claimedAt },
        item.enqueuedAt,
      ),
    );
    const now = Math.floor(this.clock.now());
    try {
      await this.deps.store.complete(completions, now, batch.token);
    } catch (err) {
      occurrenceTrace.failed(items, err);
      this.renewer.release(
        batch,
        items.map((i) => i.claim.id),
      );
      this.failed(
        err,
        'bullbeat: completion failed; the occurrences are claimed again when their lease lapses',
      );
      this.arm(this.deps.options.claimLeaseMs);
      return;
    }
    this.renewer.release(
      batch,
      items.map((i) => i.claim.id),
    );
    let soonest: number | null = null;
    for (const c of completions) {
      if (c.next === null)
        this.cache.delete(c.claim.id); // completed: it is not claimed again
      else if (soonest === null || c.next < soonest) soonest = c.next;
    }
    // Redis's clock now, not at the start of the completion: under load the completion takes long
    // enough that arming from the earlier reading put the next claim after its fire time
    if (soonest !== null) this.armFor(soonest, Math.floor(this.clock.now()));
    for (const item of items) this.emitDone(item);
  }

  private emitDone(item: Item): void {
    const { cached, plan, lateMs, staged, claim } = item;
    occurrenceTrace.completed(item, cached.def, this.replicaId);
    if (plan.enqueue) this.stats.enqueued++;
    if (plan.coalesced) {
      this.stats.coalesced += plan.coalesced.count;
      this.stats.coalescedBehind += plan.coalesced.count - 1;
    }
    this.stats.missed += plan.missed.length;
    const { events, options, logger } = this.deps;
    const say = () =>
      announce(events, logger, options.lateThresholdMs, cached.def, plan, lateMs ?? Math.max(0, plan.lateMs));
    const at = plan.enqueue?.fireAt;
    if (staged && at !== undefined && this.clock.until(at) > 0) this.announcer.add(claim.id, at, say);
    else say();
  }

  private failed(err: unknown, message: string): void {
    this.stats.errors++;
    this.deps.logger.error({ err }, message);
    this.deps.events.emit('failed', { error: err instanceof Error ? err : new Error(String(err)) });
  }

  /** A claim that cannot be planned or enqueued: its schedule becomes errored (see fire-errors.ts). */
  private markErrored(claim: Claim, def: ScheduleDefinition | undefined, err: unknown): Promise<void> {
    const now = Math.floor(this.clock.now());
    return markClaimErrored(this.deps, this.stats, now, { claim, def, err }, (e, m) => this.failed(e, m));
  }
}

/** The fire time of an item that enqueues (its plan always has `enqueue`). */
function fireTime(item: Item): number {
  return item.plan.enqueue?.fireAt ?? item.claim.fireAt;
}

function uniqueBatches(items: readonly Item[]): Batch[] {
  return [...new Set(items.map((i) => i.batch))];
}
