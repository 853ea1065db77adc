import { randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { JobsOptions, Queue } from 'bullmq';
import type { Logger } from 'pino';
import { type OccurrenceJobData, occurrenceJobId } from '../queue/occurrence-job.js';
import type { Trigger } from '../triggers/trigger.js';
import { triggerFromJSON } from '../triggers/trigger-from-json.js';
import { occurrenceField } from './keys.js';
import { type OccurrencePlan, planOccurrence } from './occurrence-planner.js';
import type { RunHistory } from './run-history.js';
import type { ScheduleDefinition } from './schedule-definition.js';
import type { Claim, Completion, ScheduleStore } from './schedule-store.js';
import type { SchedulerEvents } from './scheduler-events.js';
import type { ResolvedManagerOptions } from './scheduler-manager-options.js';

/** Test hooks, called between the steps of a fire (a test kills the process in one). */
export interface FireHooks {
  afterClaim?: (claims: readonly Claim[]) => void | Promise<void>;
  afterEnqueue?: (claims: readonly Claim[]) => void | Promise<void>;
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
  /** Subscribe to wake-ups published by other processes; returns the unsubscribe. */
  subscribe(onWake: (at: number) => void): Promise<() => Promise<void>>;
  hooks?: FireHooks | undefined;
}

/** Claim cycles one replica runs at once when batches come full (pipelining claim, enqueue, complete). */
const PARALLEL_CYCLES = 4;

function minOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

interface Cached {
  defJSON: string;
  def: ScheduleDefinition;
  trigger: Trigger;
  /** The definition's BullMQ job options (without the job id), computed once. */
  opts?: JobsOptions;
}

/** Counters of this replica's fire loop. */
export interface FireLoopStats {
  cycles: number;
  claimed: number;
  enqueued: number;
  missed: number;
  reclaimed: number;
  earlyWakeups: number;
  errors: number;
}

/**
 * The timer and the claim → enqueue → complete cycle of one replica. The timer is armed for the
 * earliest due time (or lease expiry) as Redis reports it, never longer than `maxSleepMs`; a wake-up
 * that finds nothing due yet is early and re-arms; a full batch loops at once.
 */
export class FireLoop {
  readonly stats: FireLoopStats = {
    cycles: 0,
    claimed: 0,
    enqueued: 0,
    missed: 0,
    reclaimed: 0,
    earlyWakeups: 0,
    errors: 0,
  };
  private readonly replica = randomBytes(4).toString('hex');
  private seq = 0;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  /** performance.now() at which the timer is due, when armed. */
  private armedAt: number | undefined;
  /** Cycles in flight: a full batch starts the next claim while its own enqueue is still going. */
  private readonly cycles = new Set<Promise<void>>();
  private again = false;
  private unsubscribe: (() => Promise<void>) | undefined;
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly deps: FireLoopDeps) {}

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = await this.deps.subscribe((at) => this.poke(at));
    this.launch(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.cycles.size > 0) await Promise.all([...this.cycles]);
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    await unsubscribe?.().catch(() => undefined);
  }

  /** Something became due (another process added or resumed a schedule): claim soon (pokes coalesce). */
  poke(_at?: number): void {
    this.arm(0);
  }

  /** Start a cycle now, unless as many as allowed are in flight (then the last one re-arms at 0). */
  private launch(wokeLateMs: number): void {
    if (!this.running) return;
    if (this.cycles.size >= PARALLEL_CYCLES) {
      this.again = true;
      return;
    }
    const cycle: Promise<void> = this.runCycle(wokeLateMs).finally(() => this.cycles.delete(cycle));
    this.cycles.add(cycle);
  }

  /** Arm the timer for `delayMs` from now, unless it is already armed for earlier. */
  private arm(delayMs: number): void {
    if (!this.running) return;
    const delay = Math.max(0, Math.min(delayMs, this.deps.options.maxSleepMs));
    const target = performance.now() + delay;
    if (this.timer && this.armedAt !== undefined && this.armedAt <= target) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedAt = target;
    this.timer = setTimeout(() => {
      const late = this.armedAt === undefined ? 0 : performance.now() - this.armedAt;
      this.timer = undefined;
      this.armedAt = undefined;
      this.launch(late);
    }, delay);
  }

  private async runCycle(wokeLateMs: number): Promise<void> {
    const { store, options, logger } = this.deps;
    this.again = false;
    this.stats.cycles++;
    let delay: number;
    try {
      const token = `${this.replica}.${(this.seq++).toString(36)}`;
      const res = await store.claim(options.claimBatch, options.claimLeaseMs, token);
      const at = performance.now();
      const full = res.claims.length >= options.claimBatch;
      if (full)
        this.launch(0); // more is due: claim the next batch while this one is enqueued
      else {
        // Arm for what is left in Redis now, not after this batch's enqueue and completion: the
        // next occurrence's claim overlaps this batch's enqueue (up to PARALLEL_CYCLES in flight).
        const next = minOf(res.nextDue, res.nextLease);
        this.arm(next === null ? options.maxSleepMs : next - res.now);
      }
      if (res.claims.length === 0) {
        this.stats.earlyWakeups += res.nextDue !== null && res.nextDue > res.now ? 1 : 0;
      }
      this.deps.events.emit('wake', {
        early: res.claims.length === 0,
        lateMs: Math.max(0, Math.round(wokeLateMs)),
        claimed: res.claims.length,
      });
      const soonest = res.claims.length > 0 ? await this.fire(res.claims, res.now, token) : null;
      if (full) {
        delay = 0;
      } else {
        // nextDue and nextLease were armed at the claim; only the next times this batch set remain.
        delay = soonest === null ? Infinity : soonest - res.now - (performance.now() - at);
      }
    } catch (err) {
      this.stats.errors++;
      logger.error({ err }, 'bullbeat: fire loop error; retrying in 1 s');
      this.deps.events.emit('failed', { error: err instanceof Error ? err : new Error(String(err)) });
      delay = 1000;
    }
    if (this.again) {
      this.again = false;
      this.launch(0);
    }
    if (delay !== Infinity) this.arm(delay);
  }

  /** Plan, enqueue and complete one batch of claims; returns the soonest next due time it set. */
  private async fire(claims: readonly Claim[], now: number, token: string): Promise<number | null> {
    const { logger, history, hooks } = this.deps;
    this.stats.claimed += claims.length;
    await hooks?.afterClaim?.(claims);
    const work: { claim: Claim; cached: Cached; plan: OccurrencePlan }[] = [];
    for (const claim of claims) {
      if (claim.reclaimed) this.stats.reclaimed++;
      const cached = this.load(claim);
      if (!cached) continue; // left claimed: the lease lapses and a replica that can fire it takes over
      const plan = planOccurrence({
        def: cached.def,
        trigger: cached.trigger,
        fireAt: claim.fireAt,
        now,
        fired: claim.state?.fired ?? 0,
      });
      work.push({ claim, cached, plan });
    }

    // Enqueue, grouped by queue. A reclaimed occurrence whose record shows it reached a worker is
    // not added again (its job may be gone already under removeOnComplete).
    const byQueue = new Map<string, { name: string; data: OccurrenceJobData; opts: JobsOptions }[]>();
    for (const { claim, cached, plan } of work) {
      if (!plan.enqueue) continue;
      if (claim.reclaimed) {
        const rec = await history.get(claim.id, claim.fireAt);
        if (rec?.outcome !== undefined && rec.outcome !== 'enqueued') continue;
      }
      const def = cached.def;
      const jobId = occurrenceJobId(def.id, plan.enqueue.fireAt);
      const data: OccurrenceJobData = {
        scheduleId: def.id,
        fireAt: plan.enqueue.fireAt,
        kind: plan.enqueue.kind,
        args: def.args,
        prefix: this.deps.options.prefix,
        run: def.run,
        ...(def.data !== undefined && { data: def.data }),
      };
      let list = byQueue.get(def.queue);
      if (!list) byQueue.set(def.queue, (list = []));
      cached.opts ??= this.deps.jobOptions(def, '');
      list.push({ name: def.name, data, opts: { ...cached.opts, jobId } });
    }
    await Promise.all([...byQueue].map(([q, jobs]) => this.deps.queue(q).addBulk(jobs)));
    await hooks?.afterEnqueue?.(claims);

    const completions: Completion[] = [];
    const limit = this.deps.options.historyLimit;
    for (const { claim, cached, plan } of work) {
      const def = cached.def;
      const records: Completion['records'] = [];
      const missed = plan.missed.slice(-limit);
      for (const m of missed) {
        records.push({
          fireAt: m.fireAt,
          field: occurrenceField(m.fireAt),
          patch: {
            scheduleId: def.id,
            fireAt: m.fireAt,
            kind: 'scheduled',
            outcome: 'missed',
            reason: m.reason,
          },
          counter: 'missed',
        });
      }
      if (plan.coalesceInto) {
        const c = plan.coalesceInto;
        records.push({
          fireAt: c.fireAt,
          field: occurrenceField(c.fireAt),
          patch: { scheduleId: def.id, fireAt: c.fireAt, kind: 'catch-up', coalesced: c.count },
        });
      }
      completions.push({
        claim,
        ...(plan.enqueue && {
          enqueued: {
            kind: plan.enqueue.kind,
            queue: def.queue,
            jobId: occurrenceJobId(def.id, plan.enqueue.fireAt),
          },
        }),
        next: plan.next,
        records,
        missedUncounted: plan.missed.length - missed.length,
      });
    }
    await this.deps.store.complete(completions, now, token);
    let soonest: number | null = null;
    for (const c of completions)
      if (c.next !== null && (soonest === null || c.next < soonest)) soonest = c.next;
    // Claims this process could not plan stay claimed; wake when their lease lapses.
    if (work.length < claims.length)
      soonest = Math.min(soonest ?? Infinity, now + this.deps.options.claimLeaseMs);

    for (const { cached, plan } of work) {
      const def = cached.def;
      if (plan.enqueue) {
        this.stats.enqueued++;
        const ev = {
          scheduleId: def.id,
          name: def.name,
          queue: def.queue,
          fireAt: plan.enqueue.fireAt,
          kind: plan.enqueue.kind,
          jobId: occurrenceJobId(def.id, plan.enqueue.fireAt),
          lateMs: plan.lateMs,
        };
        this.deps.events.emit('fired', ev);
        if (plan.lateMs > this.deps.options.lateThresholdMs) {
          this.deps.events.emit('late', {
            scheduleId: def.id,
            name: def.name,
            fireAt: ev.fireAt,
            lateMs: plan.lateMs,
          });
        }
      }
      if (plan.missed.length > 0) {
        this.stats.missed += plan.missed.length;
        const byReason = new Map<string, number[]>();
        for (const m of plan.missed) {
          let l = byReason.get(m.reason);
          if (!l) byReason.set(m.reason, (l = []));
          l.push(m.fireAt);
        }
        for (const [reason, fireAts] of byReason) {
          this.deps.events.emit('missed', {
            scheduleId: def.id,
            name: def.name,
            reason: reason as 'misfire',
            count: fireAts.length,
            fireAts: fireAts.slice(-100),
          });
        }
        logger.debug({ scheduleId: def.id, missed: plan.missed.length }, 'bullbeat: occurrences missed');
      }
    }
    return soonest;
  }

  /** The parsed definition and trigger of a claim, cached while its definition is unchanged. */
  private load(claim: Claim): Cached | undefined {
    const hit = this.cache.get(claim.id);
    if (hit && hit.defJSON === claim.defJSON) return hit;
    if (claim.defJSON === '') return undefined;
    try {
      const def = JSON.parse(claim.defJSON) as ScheduleDefinition;
      let trigger: Trigger | undefined;
      if (def.trigger.type === 'custom') {
        trigger = this.deps.localTrigger(def.id);
        if (!trigger) {
          this.deps.logger.warn(
            { scheduleId: def.id },
            'bullbeat: schedule has a custom trigger that this process does not define; leaving it to one that does',
          );
          return undefined;
        }
      } else {
        trigger = triggerFromJSON(def.trigger);
      }
      const cached = { defJSON: claim.defJSON, def, trigger };
      this.cache.set(claim.id, cached);
      return cached;
    } catch (err) {
      this.deps.logger.error({ err, scheduleId: claim.id }, 'bullbeat: cannot read schedule definition');
      return undefined;
    }
  }
}
