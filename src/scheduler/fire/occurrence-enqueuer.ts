import type { Claim, ScheduleDefinition } from '../../store/index.js';
import { jobDataFor, occurrenceJobId, spreadOffsetMs } from '../../store/index.js';
import * as occurrenceTrace from '../../tracing/fire-tracing.js';
import { addBulkByQueue, type BulkJob } from './add-bulk-isolated.js';
import { CapLead } from './cap-lead.js';
import type { ClaimRenewer } from './claim-renewer.js';
import type { DefinitionCache } from './definition-cache.js';
import { holdBackWhenDue } from './fire-backpressure.js';
import { markClaimErrored } from './fire-errors.js';
import {
  type Batch,
  type FireLoopDeps,
  type FireLoopStats,
  fireTime,
  type Item,
  uniqueBatches,
} from './fire-loop-types.js';
import { announce, completionOf } from './fire-records.js';
import { parkEntry } from './park.js';
import type { RedisClock } from './redis-clock.js';
import type { ReplicaAcker } from './replica-acker.js';
import type { StagedHere, StagedJob } from './staged-here.js';
import { type StagedAnnouncer, type StagedWaker, stagedJobOptions, unstage } from './staged-jobs.js';
import type { StopNotices } from './stop-notices.js';

/** The parts of a fire loop its enqueues and completions share with its claims. */
export interface EnqueueParts {
  deps: FireLoopDeps;
  stats: FireLoopStats;
  /** This replica, as its records name it. */
  replicaId: string;
  clock: RedisClock;
  renewer: ClaimRenewer;
  cache: DefinitionCache;
  stops: StopNotices;
  announcer: StagedAnnouncer;
  /** The jobs this replica added as delayed, until runnable (what a stop notice takes back). */
  staged: StagedHere;
  /** Wakes a queue's workers when its staged jobs become due. */
  waker?: StagedWaker | undefined;
  acker: ReplicaAcker | undefined;
  /** Claim again in `ms` (the claim timer). */
  arm(ms: number): void;
  /** Claim again for a schedule due at `due` (Redis ms), `now` being Redis's clock. */
  armFor(due: number, now: number): void;
  /** How far ahead claims reach now (ms). */
  aheadMs(): number;
}

/**
 * The second half of the fire cycle: claimed occurrences become BullMQ jobs (one `addBulk` per
 * queue, a refused job erroring its schedule alone), then their batches are completed (records, run
 * counts, next due times) and the occurrences announced (`fired`, `missed`, ...).
 */
export class OccurrenceEnqueuer {
  /** How long this replica's capped adds take to land (the fire budget's lead). */
  readonly #capLead = new CapLead();

  constructor(private readonly parts: EnqueueParts) {}

  /** An occurrence of a schedule stopped after its claim: it is not enqueued, and is recorded as missed. */
  notRun(item: Item): void {
    const { enqueue, ...rest } = item.plan;
    item.plan = enqueue
      ? { ...rest, missed: [...rest.missed, { fireAt: enqueue.fireAt, reason: 'paused' }] }
      : rest;
    item.batch.left--;
    item.batch.ready.push(item);
  }

  /** True when the schedule of `item` was stopped after the item was claimed. */
  private stoppedSinceClaim(item: Item): boolean {
    return this.parts.stops.stoppedSince(item.claim.id, item.stopSeq);
  }

  /**
   * Enqueue occurrences (one `addBulk` per queue), then complete the batches they finish. `added`: the
   * adds are done (with `replicaAcks`, the next enqueue of the fire timer need not wait for this one's
   * WAIT and completion). `stagedAt`: committed ahead, as delayed jobs (the claim's Redis time).
   */
  async enqueue(all: Item[], added?: () => void, stagedAt?: number): Promise<void> {
    if (all.length === 0) return;
    const { hooks } = this.parts.deps;
    const startedAt = this.parts.clock.now();
    const stopped = new Set<Item>();
    let items = all;
    const poisoned: Promise<void>[] = [];
    let capped: Awaited<ReturnType<OccurrenceEnqueuer['fireInstants']>>['capped'];
    try {
      const coalesced = await holdBackWhenDue(items, Math.floor(this.parts.clock.now()), this.parts.deps);
      if (coalesced.size > 0) items = items.filter((i) => !coalesced.has(i));
      // A claim this process no longer holds (it stalled past the lease, and another replica took the
      // occurrence over) adds nothing, however long it slept.
      const lost = await this.lostClaims(items);
      if (lost.size > 0) items = items.filter((i) => !lost.has(i));
      // A reclaimed occurrence that an add of its job started already is not added again (its job may
      // be gone under removeOnComplete, its record trimmed); the others are entered in the start
      // marks first. At once: one at a time, the take-over of a dead replica's hundreds of claims made
      // the occurrences after them late.
      const started = await this.startedAlready(items);
      const instants = await this.fireInstants(items, started);
      const firing = instants.at;
      capped = instants.capped;
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
        const data = jobDataFor(def, fireAt, item.plan.enqueue!.kind, this.parts.deps.options.prefix);
        let list = byQueue.get(def.queue);
        if (!list) byQueue.set(def.queue, (list = []));
        cached.opts ??= this.parts.deps.jobOptions(def, '');
        const jobId = occurrenceJobId(def.id, fireAt);
        item.trace = occurrenceTrace.start(item, def, fireAt, jobId, this.parts.replicaId);
        const opts = occurrenceTrace.carry({ ...cached.opts, jobId }, item.trace);
        // spread or the cap moved it: the job waits in BullMQ's delayed set until then (a capped one
        // always does: runnable at its slot, not whenever its add lands)
        const firesAt = firing.get(item) ?? fireAt;
        const from = stagedAt ?? Math.floor(startedAt);
        const delayed =
          stagedAt !== undefined || ((firesAt !== fireAt || capped !== undefined) && firesAt > from);
        if (delayed) {
          Object.assign(opts, stagedJobOptions(opts, firesAt, from));
          item.delayedUntil = firesAt;
        }
        const job: BulkJob = { name: def.name, data, opts };
        // the schedule's options but for the job id (and a staged job's timestamp and delay), no trace:
        // made from a template
        if (!item.trace) job.like = cached.opts;
        list.push({ tag: item, job });
      }
      if (hooks?.beforeAdd && byQueue.size > 0)
        await hooks.beforeAdd([...byQueue.values()].flatMap((l) => l.map((j) => j.tag.claim)));
      // A job BullMQ refuses (its options, its size) is isolated and its schedule errored; the
      // others of its queue still go. A connection failure throws: nothing is blamed.
      const refused = await addBulkByQueue(byQueue, (q) => this.parts.deps.queue(q));
      capped?.landed(this.parts.clock.now());
      occurrenceTrace.added(items, refused);
      // replicaAcks: the adds are on the queues' replicas before any completion says "enqueued"
      if (this.parts.acker) {
        added?.();
        await this.parts.acker.wait([...byQueue.keys()]);
      }
      const out = new Set(refused.map((r) => r.tag));
      if (out.size > 0) items = items.filter((i) => !out.has(i));
      for (const { tag: item, err } of refused) {
        item.batch.left--;
        this.parts.renewer.release(item.batch, [item.claim.id]);
        poisoned.push(this.markErrored(item.claim, item.cached.def, err));
      }
      await this.settleDelayed(items, stopped);
      await hooks?.afterEnqueue?.(items.map((i) => i.claim));
    } catch (err) {
      capped?.landed();
      // Not completed: each claim's lease lapses and it is claimed again (here or by another replica).
      occurrenceTrace.failed(items, err);
      this.failed(err, 'bullbeat: enqueue failed; the occurrences are claimed again when their lease lapses');
      for (const item of items) {
        item.batch.left--;
        this.parts.renewer.release(item.batch, [item.claim.id]);
      }
      this.parts.arm(this.parts.deps.options.claimLeaseMs);
      await Promise.all(poisoned);
      await Promise.all(uniqueBatches(all).map((b) => (b.left === 0 ? this.complete(b) : undefined)));
      return;
    }
    await Promise.all(poisoned);
    const horizon = this.parts.clock.now() + this.parts.aheadMs();
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
   * When each item to add becomes runnable: its fire time plus its schedule's spread offset, then, under
   * `maxFiresPerSecond`, the slot the deployment's fire budget gives it (its delay kept on the item), no
   * sooner than this replica's adds can land (`capped`: call `landed` once they did).
   */
  private async fireInstants(
    items: readonly Item[],
    started: Set<Item>,
  ): Promise<{ at: Map<Item, number>; capped?: { landed(at?: number): void } }> {
    const adds = items.filter((i) => !started.has(i) && !this.stoppedSinceClaim(i));
    const at = new Map<Item, number>();
    for (const i of adds) at.set(i, fireTime(i) + spreadOffsetMs(i.claim.id, i.cached.def.spreadMs));
    const cap = this.parts.deps.options.maxFiresPerSecond;
    if (cap <= 0 || adds.length === 0) return { at };
    const lead = this.#capLead.take(adds.length, this.parts.clock.now());
    let given: number[];
    try {
      given = await this.parts.deps.store.fireBudget(
        cap,
        lead.leadMs,
        adds.map((i) => at.get(i) as number),
      );
    } catch (err) {
      lead.landed();
      throw err;
    }
    adds.forEach((i, n) => {
      const slot = given[n] as number;
      const delay = slot - (at.get(i) as number);
      if (delay > 0) i.capDelayMs = delay;
      at.set(i, slot);
    });
    return { at, capped: lead };
  }

  /**
   * The items added as delayed jobs: remembered for a stop notice (staged-here.ts), or, where their
   * schedule was stopped while they were being added (the notice came after the check above), taken
   * out of BullMQ again and not run, unless BullMQ promoted them already.
   */
  private async settleDelayed(items: readonly Item[], stopped: Set<Item>): Promise<void> {
    const now = this.parts.clock.now();
    const late: Item[] = [];
    for (const i of items) {
      if (i.delayedUntil === undefined || stopped.has(i)) continue;
      if (this.stoppedSinceClaim(i)) late.push(i);
      else {
        this.parts.staged.add(i.claim.id, stagedJob(i, i.delayedUntil), now);
        this.parts.waker?.add(i.cached.def.queue, i.delayedUntil);
      }
    }
    await Promise.all(
      late.map(async (i) => {
        const job = stagedJob(i, i.delayedUntil as number);
        const q = this.parts.deps.queue(job.queue);
        const removed = await unstage(q, i.claim.id, job.fireAt, job.offsetMs, job.until).catch(() => []);
        if (removed.length > 0) stopped.add(i);
      }),
    );
  }

  /**
   * The reclaimed items that an add of their job started (or skipped) already (`retake-3`, at once);
   * the others are entered in their schedule's start marks before they are added, so that a stalled
   * claimant's add of the same job id, landing after, is refused at its start.
   */
  private async startedAlready(items: readonly Item[]): Promise<Set<Item>> {
    const reclaimed = items.filter((i) => i.claim.reclaimed);
    if (reclaimed.length === 0) return new Set();
    const ran = await Promise.all(
      reclaimed.map((i) => this.parts.deps.store.retake(i.claim.id, i.claim.fireAt)),
    );
    return new Set(reclaimed.filter((_, n) => ran[n]));
  }

  /**
   * The items whose claim this replica no longer holds (see `ClaimRenewer.lostOf`: checked in Redis
   * when more than half a lease passed since their lease last ran from). They are given up: their
   * batch no longer waits for them, and the replica that took them over enqueues and records them.
   */
  private async lostClaims(items: readonly Item[]): Promise<Set<Item>> {
    const byBatch = new Map<Batch, Item[]>();
    for (const item of items) {
      const list = byBatch.get(item.batch);
      if (list) list.push(item);
      else byBatch.set(item.batch, [item]);
    }
    const lost = new Set<Item>();
    await Promise.all(
      [...byBatch].map(async ([batch, list]) => {
        const gone = await this.parts.renewer.lostOf(
          batch,
          list.map((i) => i.claim.id),
        );
        for (const item of list) if (gone.has(item.claim.id)) lost.add(item);
      }),
    );
    if (lost.size === 0) return lost;
    for (const item of lost) {
      item.batch.left--;
      this.parts.renewer.release(item.batch, [item.claim.id]);
    }
    occurrenceTrace.failed([...lost], new Error('its claim lapsed and was taken over'), 'taken-over');
    this.parts.deps.logger.warn(
      { occurrences: [...lost].map((i) => ({ scheduleId: i.claim.id, fireAt: i.claim.fireAt })) },
      'bullbeat: claims lost while this process was stalled (taken over by another replica): not enqueued here',
    );
    return lost;
  }

  /** Complete the ready items of a batch: records, run counts, and each schedule's next due time. */
  async complete(batch: Batch): Promise<void> {
    const items = batch.ready.splice(0);
    if (items.length === 0) return;
    const limit = this.parts.deps.options.historyLimit;
    const completions = items.map((item) =>
      completionOf(
        item.claim,
        item.cached.def,
        item.plan,
        limit,
        { replica: this.parts.replicaId, claimedAt: item.claimedAt },
        item.enqueuedAt,
        item.capDelayMs,
      ),
    );
    const now = Math.floor(this.parts.clock.now());
    let lost: readonly string[];
    try {
      ({ lost } = await this.parts.deps.store.complete(completions, now, batch.token));
    } catch (err) {
      occurrenceTrace.failed(items, err);
      this.parts.renewer.release(
        batch,
        items.map((i) => i.claim.id),
      );
      this.failed(
        err,
        'bullbeat: completion failed; the occurrences are claimed again when their lease lapses',
      );
      this.parts.arm(this.parts.deps.options.claimLeaseMs);
      return;
    }
    this.parts.renewer.release(
      batch,
      items.map((i) => i.claim.id),
    );
    let soonest: number | null = null;
    for (const c of completions) {
      if (c.next === null)
        this.parts.cache.delete(c.claim.id); // completed: it is not claimed again
      else if (soonest === null || c.next < soonest) soonest = c.next;
    }
    // Redis's clock now, not at the start of the completion: under load the completion takes long
    // enough that arming from the earlier reading put the next claim after its fire time
    if (soonest !== null) this.parts.armFor(soonest, Math.floor(this.parts.clock.now()));
    // A claim that lapsed while this one was enqueued (a stall, an outage) was taken over, here or by
    // another replica, and its job id added again (the same job): the owner that completed announces it.
    const gone = lost.length === 0 ? undefined : new Set(lost);
    for (const item of items) {
      if (gone?.has(item.claim.id))
        occurrenceTrace.failed([item], new Error('its claim lapsed and was taken over'), 'taken-over');
      else this.emitDone(item);
    }
    await this.park(items, gone);
  }

  /**
   * Park the completed items whose occurrence was coalesced over a still-waiting job (park.ts): their
   * schedules' next occurrences are coalesced by the claim script while that job waits. On one Redis
   * only (the claim script reads the job's hash, in the queue's keys). A park that fails to be written
   * leaves the schedule claimed as usual.
   */
  private async park(items: readonly Item[], gone: ReadonlySet<string> | undefined): Promise<void> {
    const { deps } = this.parts;
    if (deps.options.target.cluster) return;
    let entries: { id: string; entry: string }[] | undefined;
    const now = Math.floor(this.parts.clock.now());
    for (const item of items) {
      if (item.plan.coalesced?.cause !== 'consumer-behind' || gone?.has(item.claim.id)) continue;
      const queue = deps.queue(item.cached.def.queue);
      const entry = parkEntry(
        item,
        deps.store.keys,
        deps.options.historyLimit,
        (id) => queue.toKey(id),
        now,
        deps.options.triggerBudgetMs,
      );
      if (entry) (entries ??= []).push({ id: item.claim.id, entry: JSON.stringify(entry) });
    }
    if (!entries) return;
    await deps.store
      .park(entries)
      .catch((err) =>
        deps.logger.warn({ err }, 'bullbeat: could not park coalesced schedules; claiming them as usual'),
      );
  }

  /**
   * Occurrences of parked schedules that a claim coalesced (their previous job still waiting; park.ts),
   * counted and recorded by the claim script: counted here and announced (`missed`, `coalesced`), one
   * event per schedule, and a `skipped` span each when tracing is on. A schedule this replica has not
   * planned is named by its id.
   */
  coalescedParked(occurrences: readonly { id: string; fireAt: number }[], claimedAt: number): void {
    occurrenceTrace.coalescedInRedis(
      occurrences,
      (id) => this.parts.cache.peek(id)?.def,
      this.parts.replicaId,
      claimedAt,
    );
    const bySchedule = new Map<string, number[]>();
    for (const o of occurrences) {
      const list = bySchedule.get(o.id);
      if (list) list.push(o.fireAt);
      else bySchedule.set(o.id, [o.fireAt]);
    }
    this.parts.stats.coalesced += occurrences.length;
    this.parts.stats.coalescedParked += occurrences.length;
    for (const [id, fireAts] of bySchedule) {
      this.parts.deps.events.emit('missed', {
        scheduleId: id,
        name: this.parts.cache.peek(id)?.def.name ?? id,
        reason: 'coalesced',
        count: fireAts.length,
        fireAts,
      });
    }
  }

  private emitDone(item: Item): void {
    const { cached, plan, lateMs, staged, claim } = item;
    occurrenceTrace.completed(item, cached.def, this.parts.replicaId);
    if (plan.enqueue) this.parts.stats.enqueued++;
    if (plan.coalesced) {
      this.parts.stats.coalesced += plan.coalesced.count;
      // the occurrences this claim handled beyond its own (a claim a period late runs a later one)
      this.parts.stats.coalescedBehind += plan.coalesced.count + (plan.enqueue ? 1 : 0) - 1;
    }
    this.parts.stats.missed += plan.missed.length;
    const { events, options, logger } = this.parts.deps;
    const say = () =>
      announce(events, logger, options.lateThresholdMs, cached.def, plan, lateMs ?? Math.max(0, plan.lateMs));
    const at = plan.enqueue?.fireAt;
    if (staged && at !== undefined && this.parts.clock.until(at) > 0)
      this.parts.announcer.add(claim.id, at, say);
    else say();
  }

  failed(err: unknown, message: string): void {
    this.parts.stats.errors++;
    this.parts.deps.logger.error({ err }, message);
    this.parts.deps.events.emit('failed', { error: err instanceof Error ? err : new Error(String(err)) });
  }

  /** A claim that cannot be planned or enqueued: its schedule becomes errored (see fire-errors.ts). */
  markErrored(claim: Claim, def: ScheduleDefinition | undefined, err: unknown): Promise<void> {
    const now = Math.floor(this.parts.clock.now());
    return markClaimErrored(this.parts.deps, this.parts.stats, now, { claim, def, err }, (e, m) =>
      this.failed(e, m),
    );
  }
}

/** The delayed job of `item`, runnable at `until`. */
function stagedJob(item: Item, until: number): StagedJob {
  const def = item.cached.def;
  return { queue: def.queue, fireAt: fireTime(item), offsetMs: spreadOffsetMs(def.id, def.spreadMs), until };
}
