import type { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { JobsOptions } from 'bullmq';
import type { Logger } from 'pino';
import type { CalendarBook, Keys, ScheduleDefinition } from '../../store/index.js';
import { CODE_ACTOR, publishWake, ScheduleStore, WAKE_HANDOFF } from '../../store/index.js';
import type { Trigger } from '../../triggers/trigger.js';
import { AlertService, processTimers, repeatEvery } from '../alerts/index.js';
import type { ResolvedManagerOptions, ScheduledJob, SchedulerEvents } from '../contract/index.js';
import {
  type FireHooks,
  FireLoop,
  type FireLoopDeps,
  type FireLoopFootprint,
  type FireLoopStats,
  MAX_HORIZON_MS,
} from '../fire/index.js';
import { type ForeignOutcomesManager, startForeignOutcomes } from '../outcomes/index.js';
import type { ManagerConnections } from './manager-connections.js';

/** What the scheduler role needs from its manager. */
export interface ReplicaDeps {
  manager: ForeignOutcomesManager & { readonly events: EventEmitter<SchedulerEvents> };
  connections: ManagerConnections;
  options: ResolvedManagerOptions;
  keys: Keys;
  logger: Logger;
  /** The schedules this process defines, by id. */
  local: ReadonlyMap<string, ScheduledJob>;
  jobOptions(def: ScheduleDefinition, jobId: string): JobsOptions;
  /** Drop a schedule's occurrences held here and tell the other replicas to (`stop:<id>`). */
  publishStop(id: string): Promise<void>;
  hooks: FireHooks | undefined;
  /** The named calendars, read by the schedules that use one when they are planned. */
  calendars?: CalendarBook | undefined;
}

/**
 * The scheduler role of a manager: orphans marked at start, the fire loop, foreign consumers'
 * outcomes, and the pruning of completed schedules. `stop()` hands over to the other replicas.
 */
export class ReplicaRole {
  /** The fire loop: one over every partition (see `everyPartitionLoop`); one of a single partition with P = 1. */
  private loops: FireLoop[] = [];
  private foreign: { stop(): Promise<void> } | undefined;
  /** Stops the prune of completed schedules (on the fire loop's timers: a manual clock's in tests). */
  private stopPrune: (() => void) | undefined;
  private lastStats: FireLoopStats | undefined;
  /** Expectations, incidents, their deliveries and the heartbeat (docs/being-told.md). */
  private alerts: AlertService | undefined;

  constructor(private readonly deps: ReplicaDeps) {}

  async start(): Promise<void> {
    const { connections, options, manager } = this.deps;
    if (options.pauseOrphans) await this.markOrphans();
    this.loops.push(
      this.deps.keys.partitions > 1
        ? this.everyPartitionLoop()
        : this.fireLoop(connections.store.partition(0), (onMessage) => connections.subscribe(onMessage)),
    );
    await Promise.all(this.loops.map((l) => l.start()));
    this.foreign = await startForeignOutcomes(manager);
    this.stopPrune = repeatEvery(
      this.deps.hooks?.clock ?? processTimers,
      Math.max(1, Math.min(60_000, options.completedRetentionMs)),
      () => void this.prune(),
    );
    const alertsRedis = connections.alertsRedis;
    this.alerts = new AlertService({
      redis: alertsRedis,
      prefix: options.prefix,
      keys: this.deps.keys,
      store: new ScheduleStore(alertsRedis, this.deps.keys, options.historyLimit),
      alerts: options.alerts,
      defaults: options.expect,
      queue: (q) => connections.queue(q),
      logger: this.deps.logger,
      replicaId: `${hostname()}:${process.pid}`,
      healthy: () => this.loops.length > 0,
      onChange: (change) => manager.events.emit('incident', change),
      timers: this.deps.hooks?.clock,
    });
    await this.alerts.start();
  }

  /** A fire loop over `store`, hearing the wake channel through `subscribe`. */
  private fireLoop(store: FireLoopDeps['store'], subscribe: FireLoopDeps['subscribe']): FireLoop {
    const { connections, options, logger, manager, local } = this.deps;
    return new FireLoop({
      store,
      history: connections.history,
      options,
      logger,
      events: manager.events,
      queue: (name) => connections.queue(name),
      localTrigger: (id) => customTriggerOf(local.get(id)),
      jobOptions: (def, jobId) => this.deps.jobOptions(def, jobId),
      subscribe,
      hooks: this.deps.hooks,
      clock: this.deps.hooks?.clock,
      calendars: this.deps.calendars,
    });
  }

  /**
   * With P > 1 partitions, one fire loop whose claim cycle claims every partition with something
   * due (concurrently, one script per partition), so that one `addBulk` per queue carries them all;
   * a slow or failing partition does not hold the others back (see partition-claims.ts).
   */
  private everyPartitionLoop(): FireLoop {
    const { connections, options, logger, manager } = this.deps;
    const store = connections.store;
    const fanOut = store.claimEveryPartition({
      recheckMs: options.maxSleepMs,
      maxWaitMs: Math.max(MAX_HORIZON_MS, Math.floor(options.claimLeaseMs / 4)),
      stuckMs: options.claimLeaseMs,
      onError: (err) => {
        logger.error({ err }, 'bullbeat: claim of a partition failed; retrying it in 1 s');
        manager.events.emit('failed', { error: err instanceof Error ? err : new Error(String(err)) });
      },
    });
    return this.fireLoop(store, (onMessage) =>
      connections.subscribe((m) => {
        fanOut.wake(m);
        onMessage(m);
      }),
    );
  }

  /** Stop firing (what is claimed is enqueued and completed), then wake the other replicas. */
  async stop(): Promise<void> {
    await this.alerts?.stop();
    this.alerts = undefined;
    this.stopPrune?.();
    this.stopPrune = undefined;
    if (this.loops.length > 0) {
      await Promise.all(this.loops.map((l) => l.stop()));
      // What this replica claimed is back in `due`: wake the others now, not at their next timer.
      await publishWake(this.deps.connections.redis, this.deps.keys, WAKE_HANDOFF).catch(() => undefined);
    }
    await this.foreign?.stop();
    this.foreign = undefined;
    this.lastStats = this.stats;
    this.loops = [];
  }

  /** Drop the schedule's occurrences claimed here and not yet enqueued (see `FireLoop.stopSchedule`). */
  stopSchedule(id: string): void {
    const loop = this.loops.length === 1 ? this.loops[0] : this.loops[this.deps.keys.partitionOf(id)];
    loop?.stopSchedule(id);
  }

  /** The counters of every partition's loop, summed. */
  get stats(): FireLoopStats | undefined {
    if (this.loops.length === 0) return this.lastStats;
    if (this.loops.length === 1) return this.loops[0]!.stats;
    const sum = { ...this.loops[0]!.stats };
    for (const l of this.loops.slice(1)) {
      for (const [k, v] of Object.entries(l.stats)) sum[k as keyof FireLoopStats] += v;
    }
    return sum;
  }

  get footprint(): FireLoopFootprint | undefined {
    if (this.loops.length === 0) return undefined;
    const sum: FireLoopFootprint = { cachedDefinitions: 0, stopNotices: 0, pending: 0, inFlight: 0 };
    for (const l of this.loops) {
      for (const [k, v] of Object.entries(l.footprint)) sum[k as keyof FireLoopFootprint] += v;
    }
    return sum;
  }

  /** Pause code schedules that no code in this process defines any more (they would fire into the void). */
  private async markOrphans(): Promise<void> {
    const { connections, local, logger } = this.deps;
    const store = connections.store;
    for (const [id, s] of await store.states()) {
      if (s.source !== 'code' || s.status !== 'a' || local.has(id)) continue;
      if ((await store.setStatus(id, 'a', 'o', null, { op: 'orphan', by: CODE_ACTOR })) === 'done') {
        await this.deps.publishStop(id);
        logger.warn(
          { scheduleId: id },
          'bullbeat: code schedule no longer defined in code; paused as orphaned',
        );
      }
    }
  }

  private async prune(): Promise<void> {
    const { connections, options, local, logger } = this.deps;
    try {
      const store = connections.store;
      const now = await store.time();
      const ids = await store.completedBefore(now - options.completedRetentionMs, 100);
      for (const id of ids) {
        // A completed schedule this code still defines is kept, so the next start does not re-arm it.
        if (local.get(id)?.def.source === 'code') await store.keepCompleted(id, now);
        else await store.remove(id, 'c');
      }
    } catch (err) {
      logger.warn({ err }, 'bullbeat: pruning completed schedules failed');
    }
  }
}

/** The custom trigger a local schedule defines, if it has one (built-in ones are read from Redis). */
export function customTriggerOf(job: ScheduledJob | undefined): Trigger | undefined {
  return job?.def.trigger.type === 'custom' ? job.trigger : undefined;
}
