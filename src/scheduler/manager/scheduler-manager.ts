import { EventEmitter } from 'node:events';
import type { JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { ScheduleNotFoundError, ScheduleOptionsError } from '../../errors/index.js';
import { uniqueKeys } from '../../logging/unique-keys.js';
import type { HandlerEntry } from '../../queue/worker-scheduler.js';
import { type AuditActor, type AuditEntry, CODE_ACTOR } from '../../store/audit-entry.js';
import { type AuditQuery, AuditTrail } from '../../store/audit-trail.js';
import { BackfillLedger } from '../../store/backfill-ledger.js';
import { jobOptionsFor } from '../../store/job-payload.js';
import { JobStatus } from '../../store/job-status.js';
import { type Keys, keys } from '../../store/keys.js';
import { PauseNotes } from '../../store/pause-note.js';
import type { RedisTarget } from '../../store/redis-target.js';
import { countsFrom } from '../../store/run-history.js';
import type { ScheduleDefinition } from '../../store/schedule-definition.js';
import type { ScheduleStore } from '../../store/schedule-store.js';
import { CronTrigger } from '../../triggers/cron-trigger.js';
import { IntervalTrigger } from '../../triggers/interval-trigger.js';
import type { Trigger } from '../../triggers/trigger.js';
import { triggerFromJSON } from '../../triggers/trigger-from-json.js';
import type { OwedRunsContext } from '../backfill/index.js';
import {
  type BackfillContext,
  type BackfillRun,
  OwedRunsSweeper,
  runBackfill,
  startBackfill,
} from '../backfill/index.js';
import type {
  BackfillOptions,
  BackfillResult,
  CronScheduleOptions,
  EveryOptions,
  HandleOptions,
  PauseOptions,
  ResolvedManagerOptions,
  ResumeOptions,
  ScheduleOptions,
  SchedulerEvents,
  SchedulerManagerOptions,
  ScheduleTarget,
} from '../contract/index.js';
import {
  actorOf,
  applyPatch,
  type ChangeOptions,
  checkHandleOptions,
  resolveManagerOptions,
  resolveScheduleOptions,
  ScheduledJob,
  type SchedulePatch,
} from '../contract/index.js';
import type { FireHooks, FireLoopFootprint, FireLoopStats } from '../fire/index.js';
import { ManagerConnections } from './manager-connections.js';
import { NamedHandler } from './named-handler.js';
import { customTriggerOf, ReplicaRole } from './replica-role.js';
import { resumeWithPolicy } from './resume-catch-up.js';
import { type ControlContext, pauseSchedule, removeSchedule } from './schedule-controls.js';
import { handlerDecorator, scheduleDecorator } from './schedule-decorator.js';
import { fillCounters, listPage, materialize, queueNamesOf, type ReadContext } from './schedule-reads.js';
import { type EnqueueContext, enqueueNow, saveSchedule, type WriteContext } from './schedule-writes.js';
import { statsOf } from './scheduler-helpers.js';
import type {
  HandlerDecorator,
  HistoryAccess,
  ListQuery,
  ScheduleDecorator,
  SchedulerStats,
} from './scheduler-manager-types.js';
import {
  restageUpdated,
  type StagedControlContext,
  unstagePaused,
  unstageRemoved,
} from './staged-controls.js';

export { firstFire } from './scheduler-helpers.js';
export type {
  HandlerDecorator,
  HistoryAccess,
  ListQuery,
  ScheduleDecorator,
  SchedulerStats,
} from './scheduler-manager-types.js';

type AnyFn = (...args: never[]) => unknown;

/**
 * Sillo's `SchedulerManager`, persistent in Redis and safe with any number of replicas. Define
 * schedules (`schedule`, `every`, `cron`), then `start()`: code schedules are upserted and, in the
 * scheduler role, the fire loop enqueues each occurrence exactly once onto its BullMQ queue.
 */
export class SchedulerManager extends EventEmitter<SchedulerEvents> {
  readonly options: ResolvedManagerOptions;
  readonly prefix: string;
  readonly keys: Keys;
  readonly logger: pino.Logger;
  /** @internal Test hooks between the steps of a fire; left out of the published types (`stripInternal`). */
  hooks: FireHooks | undefined;

  private readonly local = new Map<string, ScheduledJob>();
  private readonly byName = new Map<string, ScheduledJob>();
  /** Handlers registered by job name with `handle()` (no schedule). */
  private readonly handlers = new Map<string, NamedHandler>();
  private notesStore: PauseNotes | undefined;
  private readonly connections: ManagerConnections;
  private replica: ReplicaRole | undefined;
  private lastLoopStats: FireLoopStats | undefined;
  /** Enqueues the catch-up and backfill runs whose taker did not (scheduler role). */
  private owedSweeper: OwedRunsSweeper | undefined;
  private started = false;
  private startedAt = 0;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(options: SchedulerManagerOptions = {}) {
    super();
    this.options = resolveManagerOptions(options);
    this.prefix = this.options.prefix;
    this.keys = keys(this.prefix, this.options.partitions);
    this.logger =
      this.options.logger ??
      pino({
        name: 'bullbeat',
        level: process.env.LOG_LEVEL ?? 'info',
        hooks: { logMethod: uniqueKeys },
      });
    this.connections = new ManagerConnections(this.options, this.keys, () => this.logger);
  }

  /** This manager's own Redis client (created on first use). */
  get redis(): Redis {
    return this.connections.redis;
  }

  /** The bounded run history; also callable: `history(id, limit?)` → newest records first. */
  get history(): HistoryAccess {
    return this.connections.history;
  }

  private get store(): ScheduleStore {
    return this.connections.store;
  }

  /**
   * What BullMQ queues and workers connect with (`maxRetriesPerRequest: null`, as BullMQ workers need).
   * On a Redis Cluster it carries `cluster` (seed nodes): make clients with `openRedis` from `bullbeat`.
   */
  connectionOptions(): RedisTarget {
    return this.connections.connectionOptions();
  }

  /**
   * BullMQ's key prefix of a queue: `undefined` (BullMQ's default `bull`) on a single Redis, `{bull:<queue>}`
   * on a Redis Cluster (a hash tag per queue). A plain BullMQ `Worker` of the queue passes the same.
   */
  queuePrefixFor(queue: string): string | undefined {
    return this.connections.queuePrefix(queue);
  }

  /** How many partitions the schedules are spread over (see `SchedulerManagerOptions.partitions`). */
  get partitions(): number {
    return this.keys.partitions;
  }

  // ── defining schedules ────────────────────────────────────────────────────────────────

  /**
   * Schedule `fn` (called with `...args, ctx` by a worker) or a `{ queue, name }` target (any BullMQ
   * consumer) on `trigger`. Returns at once; `job.saved` settles when it is in Redis (code schedules
   * are saved by `start()`; after start, or for a target, right away).
   */
  schedule(
    fnOrTarget: AnyFn | ScheduleTarget,
    trigger: Trigger,
    options: ScheduleOptions = {},
    change?: ChangeOptions,
  ): ScheduledJob {
    const isFn = typeof fnOrTarget === 'function';
    const target = isFn ? undefined : (fnOrTarget as ScheduleTarget);
    if (!isFn && (typeof target !== 'object' || target === null || typeof target.name !== 'string')) {
      throw new ScheduleOptionsError(
        options.id ?? options.name,
        'target',
        'must be a function or { queue?, name }',
      );
    }
    const source = isFn && !this.started ? 'code' : 'runtime';
    const resolved = resolveScheduleOptions({
      options,
      fallbackName: isFn ? (fnOrTarget as AnyFn).name || undefined : target?.name,
      defaultQueue: this.options.defaultQueue,
      targetQueue: target?.queue,
      trigger,
      source,
      triggerBudgetMs: this.options.triggerBudgetMs,
    });
    const job = new ScheduledJob(
      this,
      resolved.def,
      resolved.trigger,
      isFn ? (fnOrTarget as AnyFn) : undefined,
      resolved.middleware,
    );
    const previous = this.local.get(job.id);
    if (previous) {
      this.logger.warn(
        { scheduleId: job.id },
        'bullbeat: schedule id defined twice; the last definition wins',
      );
      if (this.byName.get(previous.name) === previous) this.byName.delete(previous.name);
    }
    this.local.set(job.id, job);
    if (job.fn) this.byName.set(job.name, job);
    if (this.started || !isFn) {
      const saved = this.persist(job, undefined, actorOf(job.id, change));
      saved.catch((err) =>
        this.logger.error({ err, scheduleId: job.id }, 'bullbeat: saving schedule failed'),
      );
      job.saved = saved;
    }
    return job;
  }

  /** Run every `seconds` (Sillo's `every`): `every(60)(fn)` or `@scheduler.every(60)` on a method. */
  every(seconds: number, options: EveryOptions = {}): ScheduleDecorator {
    const { jitter, anchor, ...rest } = options;
    const trigger = new IntervalTrigger(seconds, {
      ...(jitter !== undefined && { jitter }),
      ...(anchor !== undefined && { anchor }),
    });
    return this.decorator(trigger, rest);
  }

  /** Run on a cron expression (Sillo's `cron`): `cron('0 9 * * 1-5', { timezone })(fn)` or as a decorator. */
  cron(expression: string, options: CronScheduleOptions = {}): ScheduleDecorator {
    const { jitter, dayMatch, dst, timezone, ...rest } = options;
    const trigger = new CronTrigger(expression, {
      ...(jitter !== undefined && { jitter }),
      ...(dayMatch !== undefined && { dayMatch }),
      ...(dst !== undefined && { dst }),
      ...(timezone !== undefined && { timezone }),
    });
    return this.decorator(trigger, rest);
  }

  private decorator(trigger: Trigger, options: ScheduleOptions): ScheduleDecorator {
    return scheduleDecorator((fn, t, o) => this.schedule(fn, t, o), trigger, options);
  }

  private async persist(job: ScheduledJob, ifCreatedAt: number | undefined, by: AuditActor): Promise<void> {
    await this.connections.checkPartitions(true);
    return saveSchedule(this.writes, job, ifCreatedAt, by);
  }

  private get writes(): WriteContext {
    return {
      store: this.store,
      keys: this.keys,
      logger: this.logger,
      events: this,
      publish: (message) => this.redis.publish(this.keys.wake, message),
      triggerOf: (def) => this.triggerOf(def),
      local: this.local,
    };
  }

  // ── handlers for workers ─────────────────────────────────────────────────────────────

  /**
   * Register a worker handler for a job name without defining a schedule (`handle(name, fn)`), or as
   * a decorator (`@scheduler.handle()` on a method, named after it; `handle(name)(fn)`). Runtime
   * schedules made by the API, the CLI or the dashboard (`{ queue, name }` targets) run through it;
   * nothing fires from it. A name registered twice is refused, naming it; a code schedule of the same
   * name keeps its own function.
   */
  handle(name: string, fn: AnyFn, options?: HandleOptions): void;
  handle(name?: string, options?: HandleOptions): HandlerDecorator;
  handle(
    name?: string,
    fnOrOptions?: AnyFn | HandleOptions,
    options: HandleOptions = {},
  ): undefined | HandlerDecorator {
    if (typeof fnOrOptions === 'function') {
      this.registerHandler(name, fnOrOptions, options);
      return undefined;
    }
    const given = fnOrOptions ?? {};
    checkHandleOptions(name, given, false);
    return handlerDecorator((n, fn) => this.registerHandler(n, fn, given), name);
  }

  private registerHandler(name: string | undefined, fn: AnyFn, options: HandleOptions): void {
    const checked = checkHandleOptions(name, options);
    if (typeof fn !== 'function') throw new ScheduleOptionsError(checked, 'fn', 'must be a function');
    if (this.handlers.has(checked)) {
      throw new ScheduleOptionsError(checked, 'name', 'already has a handler registered with handle()');
    }
    const queue = options.queue ?? this.options.defaultQueue;
    this.handlers.set(checked, new NamedHandler(checked, queue, fn, options.middleware ?? [], this.logger));
  }

  /**
   * The handler for a BullMQ job: schedule `scheduleId`'s own function when it is defined here under
   * `name`; else, by name, a code schedule's function, or one registered with `handle()`. Code schedules
   * on different functions of one name each run their own; a job that names none of them gets the
   * `handle()` one, or an entry marked `ambiguous` (the worker refuses it).
   */
  handlerFor(
    name: string,
    scheduleId?: string,
  ): (HandlerEntry & { job: ScheduledJob | NamedHandler }) | undefined {
    const own = scheduleId === undefined ? undefined : this.local.get(scheduleId);
    if (own?.fn && own.name === name)
      return { fn: own.fn, args: own.args, middleware: own.middleware, job: own };
    const job = this.byName.get(name);
    const named = this.handlers.get(name);
    if (job?.fn) {
      const sharing = this.sameName(name, job.fn);
      if (sharing.length === 0) return { fn: job.fn, args: job.args, middleware: job.middleware, job };
      if (!named) {
        const ids = [job.id, ...sharing].sort();
        return { fn: job.fn, args: job.args, middleware: job.middleware, job, ambiguous: ids };
      }
    }
    if (named) return { fn: named.fn, middleware: named.middleware, job: named };
    return undefined;
  }

  /** The code schedules of `name` here whose function is not `fn`. */
  private sameName(name: string, fn: (...args: never[]) => unknown): string[] {
    const ids: string[] = [];
    for (const j of this.local.values()) if (j.name === name && j.fn && j.fn !== fn) ids.push(j.id);
    return ids;
  }

  /** Names with a handler in this process (code schedules' and `handle()`'s). */
  handlerNames(): string[] {
    return [...new Set([...this.byName.keys(), ...this.handlers.keys()])];
  }

  /** Every queue the schedules use: this process's and every one stored in Redis. */
  async queueNames(): Promise<string[]> {
    await this.connections.checkPartitions(false);
    return queueNamesOf(this.reads, this.options.defaultQueue);
  }

  // ── managing schedules ───────────────────────────────────────────────────────────────

  /** Remove (cancel) a schedule and forget its history (its audit trail is kept `auditRetentionMs`). False if there was none. */
  async remove(id: string, change?: ChangeOptions): Promise<boolean> {
    await this.connections.checkPartitions(true);
    const queue = (await this.store.get(id))?.def.queue;
    const removed = await removeSchedule(this.controls, id, change);
    if (removed && queue !== undefined) await unstageRemoved(this.staged, queue, id);
    return removed;
  }

  /**
   * Change a runtime schedule's trigger or options (Temporal's `ScheduleHandle.update`): the patch is
   * merged with what is stored and checked by the same schema as a new schedule (nothing is written
   * when a field is bad), then saved by the same upsert as `schedule()`, so an update while an
   * occurrence is claimed or running never sends it back in time, and a changed timing recomputes its
   * next fire time (an unchanged one keeps it). A paused schedule stays paused. A code schedule is
   * refused (`source`): the next start of its code would overwrite the update; change the code. The
   * write happens only over the schedule read: one removed meanwhile stays removed (the update fails
   * with `ScheduleNotFoundError`), one created again under the same id is left alone.
   */
  async update(id: string, patch: SchedulePatch, change?: ChangeOptions): Promise<ScheduledJob> {
    const by = actorOf(id, change);
    await this.connections.checkPartitions(true);
    const row = await this.store.get(id);
    if (!row) throw new ScheduleNotFoundError(id);
    if (row.def.source === 'code') {
      throw new ScheduleOptionsError(
        id,
        'source',
        'is defined in code: change it in the jobs module (its next start would overwrite an update)',
      );
    }
    const readable = row.error?.at !== null ? this.triggerOf(row.def) : undefined;
    const { options, trigger } = applyPatch(row.def, patch, readable);
    const mine = this.local.get(id);
    const resolved = resolveScheduleOptions({
      options,
      fallbackName: row.def.name,
      defaultQueue: this.options.defaultQueue,
      trigger,
      source: 'runtime',
      triggerBudgetMs: this.options.triggerBudgetMs,
    });
    const job = new ScheduledJob(
      this,
      resolved.def,
      trigger,
      mine?.fn,
      mine?.middleware ?? resolved.middleware,
    );
    // only over the schedule read above: one removed meanwhile stays removed
    await this.persist(job, row.state.createdAt, by);
    await restageUpdated(this.staged, row.def.queue, id);
    if (mine) {
      this.local.set(id, job);
      if (this.byName.get(mine.name) === mine) this.byName.delete(mine.name);
      if (job.fn) this.byName.set(job.name, job);
    }
    return (await this.get(id)) ?? job;
  }

  /** A fresh handle on a stored schedule, or undefined. */
  async get(id: string): Promise<ScheduledJob | undefined> {
    await this.connections.checkPartitions(false);
    const row = await this.store.get(id);
    if (!row) return undefined;
    const [job] = await materialize(this.reads, [row]);
    return job;
  }

  /** Every schedule, optionally of one status (Sillo's `list(status)`), or a page of them. */
  async list(query?: JobStatus | ListQuery): Promise<ScheduledJob[]> {
    return (await this.listPage(typeof query === 'string' ? { status: query } : (query ?? {}))).items;
  }

  /** A page of schedules sorted by id, with the total that matched (for dashboards). */
  async listPage(query: ListQuery = {}): Promise<{ total: number; items: ScheduledJob[] }> {
    await this.connections.checkPartitions(false);
    return listPage(this.reads, query);
  }

  /**
   * Pause an active schedule, with a note saying why (Temporal's `pause(note)`): the note, who paused
   * it (`by`, default this process) and when are shown beside it until it is resumed. A note over 500
   * characters is refused (`note`), nothing changed. False if it was not active (its note unchanged).
   */
  async pause(id: string, options: PauseOptions = {}): Promise<boolean> {
    await this.connections.checkPartitions(true);
    const paused = await pauseSchedule(this.controls, id, options);
    if (paused) await unstagePaused(this.staged, id);
    return paused;
  }

  private get controls(): ControlContext {
    const { store, local, byName, backfillLedger: ledger } = this;
    const publishStop = (x: string) => this.publishStop(x);
    return {
      store,
      notes: this.pauseNotes,
      audit: this.connections.audit,
      ledger,
      local,
      byName,
      publishStop,
    };
  }

  /**
   * Resume a paused (or orphaned) schedule from the next occurrence after now, and after any
   * occurrence still claimed from before the pause; retry an errored one. False if it was neither.
   * `policy` says what becomes of the occurrences due while it was paused (Temporal's catch-up on
   * unpause): `skip` (default) none run, `once` one run stands for them all, `all` each runs, up to
   * `maxCatchUp` (default 100; more is refused, nothing changed); they are recorded as `catch-up`.
   * An unknown policy is refused (`policy`). Its pause note is dropped.
   */
  async resume(id: string, options?: ResumeOptions): Promise<boolean> {
    await this.connections.checkPartitions(true);
    return resumeWithPolicy(
      {
        ...this.enqueueContext,
        ...this.owedRunsContext,
        notes: this.pauseNotes,
        owedGraceMs: this.options.claimLeaseMs,
      },
      id,
      options,
    );
  }

  /** The pause notes (`{prefix}:bb:notes`), on the current client (a close ends it; the next use connects again). */
  private get pauseNotes(): PauseNotes {
    const redis = this.redis;
    if (this.notesStore?.redis !== redis) this.notesStore = new PauseNotes(redis, this.keys);
    return this.notesStore;
  }

  private get enqueueContext(): EnqueueContext {
    return {
      ...this.writes,
      prefix: this.prefix,
      history: this.history,
      queue: (name) => this.queue(name),
      jobOptions: (def, jobId) => this.jobOptions(def, jobId),
      manualRuns: {
        ...this.connections.audit,
        redis: this.redis,
        keys: this.keys,
        historyLimit: this.options.historyLimit,
        audit: this.connections.audit,
      },
    };
  }

  /** Enqueue one run now, recorded as manual (its own job id: it never replaces a scheduled one). */
  async triggerNow(id: string, change?: ChangeOptions): Promise<{ jobId: string; fireAt: number }> {
    const by = actorOf(id, change);
    await this.connections.checkPartitions(true);
    return enqueueNow(this.enqueueContext, id, by);
  }

  /** Who changed schedule `id`, what and when: its audit trail, newest first (see `AuditQuery`). */
  async auditTrail(id: string, query?: AuditQuery): Promise<AuditEntry[]> {
    await this.connections.checkPartitions(false);
    return new AuditTrail(this.redis, this.keys).list(id, query);
  }

  /**
   * Backfill (Temporal's schedule backfill): enqueue the occurrences of `[from, to)` that nothing ran,
   * computed by the schedule's own trigger, at a bounded rate, each recorded with kind `backfill`
   * under its own job id; `dryRun` lists them and enqueues nothing. See `BackfillOptions`.
   */
  async backfill(id: string, options: BackfillOptions): Promise<BackfillResult> {
    await this.connections.checkPartitions(true);
    return runBackfill(this.backfills, id, options);
  }

  /**
   * `backfill()` without waiting for the enqueueing: resolves once the range is checked and judged
   * (every error is thrown by then, nothing enqueued), with `done` settling when it is all enqueued.
   */
  async startBackfill(id: string, options: BackfillOptions): Promise<BackfillRun> {
    await this.connections.checkPartitions(true);
    return startBackfill(this.backfills, id, options);
  }

  private get backfills(): BackfillContext {
    return {
      ...this.owedRunsContext,
      store: this.store,
      owedGraceMs: this.options.claimLeaseMs,
      triggerOf: (def) => this.triggerOf(def),
    };
  }

  /** What enqueueing the occurrences a backfill or a catch-up took needs (the sweeper's too). */
  private get owedRunsContext(): OwedRunsContext {
    return {
      ledger: this.backfillLedger,
      prefix: this.prefix,
      events: this,
      time: () => this.store.time(),
      queue: (name) => this.queue(name),
      jobOptions: (def, jobId) => this.jobOptions(def, jobId),
    };
  }

  private get backfillLedger(): BackfillLedger {
    return new BackfillLedger(this.redis, this.keys, this.options.historyLimit, this.connections.audit);
  }

  /** Sillo's stats, over the deployment. */
  async stats(): Promise<SchedulerStats> {
    await this.connections.checkPartitions(false);
    const states = await this.store.states();
    const uptime = this.started ? (this.options.clock() - this.startedAt) / 1000 : 0;
    const totals = await this.history.rawTotals();
    const erroredTotal = Number(totals.errored ?? 0);
    return statsOf(states.values(), countsFrom(totals), uptime, erroredTotal);
  }

  /** Reload a handle from Redis. */
  async refreshJob(job: ScheduledJob): Promise<boolean> {
    await this.connections.checkPartitions(false);
    const row = await this.store.get(job.id);
    if (!row) {
      job.status = JobStatus.CANCELLED;
      job.nextRunTime = null;
      return false;
    }
    job.def = row.def;
    await fillCounters(this.reads, [job], [row]);
    return true;
  }

  // ── lifecycle ────────────────────────────────────────────────────────────────────────

  /** Upsert the code's schedules and, in the scheduler role, start firing. Safe to call twice. */
  start(): Promise<void> {
    if (this.started) return Promise.resolve();
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    await this.stopping;
    await this.connections.checkPartitions(true);
    const code = [...this.local.values()].filter((j) => j.def.source === 'code');
    for (let i = 0; i < code.length; i += 500) {
      await Promise.all(
        code.slice(i, i + 500).map((j) => (j.saved = this.persist(j, undefined, CODE_ACTOR))),
      );
    }
    await Promise.allSettled([...this.local.values()].map((j) => j.saved));
    if (this.options.role === 'scheduler') {
      // the queues of its code schedules are connected before the first claim: the first occurrence
      // after a start is not late by a connection's set-up (hundreds of ms on a cluster)
      const queues = new Set([...this.local.values()].map((j) => j.def.queue));
      await Promise.all(
        [...queues].map((q) =>
          this.queue(q)
            .waitUntilReady()
            .catch(() => undefined),
        ),
      );
      this.replica = new ReplicaRole({
        manager: this,
        connections: this.connections,
        options: this.options,
        keys: this.keys,
        logger: this.logger,
        local: this.local,
        jobOptions: (def, jobId) => this.jobOptions(def, jobId),
        publishStop: (id) => this.publishStop(id),
        hooks: this.hooks,
      });
      await this.replica.start();
      const lease = this.options.claimLeaseMs;
      this.owedSweeper = new OwedRunsSweeper(
        this.owedRunsContext,
        this.keys.partitions,
        lease,
        lease,
        this.logger,
      );
      this.owedSweeper.start();
    }
    this.started = true;
    this.startedAt = this.options.clock();
    this.logger.info(
      { schedules: this.local.size, managerRole: this.options.role },
      'bullbeat: scheduler started',
    );
  }

  /** Stop firing and close connections. Safe to call twice; concurrent callers share the promise. */
  stop(): Promise<void> {
    if (!this.started && !this.starting) return this.stopping ?? Promise.resolve();
    this.stopping ??= this.doStop().finally(() => {
      this.stopping = undefined;
    });
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    this.started = false;
    await this.owedSweeper?.stop();
    this.owedSweeper = undefined;
    await this.replica?.stop();
    this.lastLoopStats = this.replica?.stats;
    this.replica = undefined;
    await this.connections.close();
    this.logger.info('bullbeat: scheduler stopped');
  }

  /** Close connections without starting (a client that only defined or read schedules). */
  async close(): Promise<void> {
    if (this.started || this.starting) return this.stop();
    await this.connections.close();
  }

  /** True between a completed `start()` and `stop()`. */
  get running(): boolean {
    return this.started;
  }

  /** What this replica's fire loop holds in memory (while running). */
  get loopFootprint(): FireLoopFootprint | undefined {
    return this.replica?.footprint;
  }

  /** Fire-loop counters of this replica (of its last run, once stopped). */
  get loopStats(): FireLoopStats | undefined {
    return this.replica?.stats ?? this.lastLoopStats;
  }

  // ── internals ───────────────────────────────────────────────────────────────────────

  /** The BullMQ queue of a name (one per manager, created on first use). */
  queue(name: string): Queue {
    return this.connections.queue(name);
  }

  /** An occurrence's BullMQ options: the schedule's passthrough, retries, and a retention floor for dedupe. */
  jobOptions(def: ScheduleDefinition, jobId: string): JobsOptions {
    return jobOptionsFor(def, jobId, this.options.keepFinishedJobsSec);
  }

  /** Tell every replica to drop the schedule's occurrences it claimed ahead and has not enqueued. */
  private async publishStop(id: string): Promise<void> {
    this.replica?.stopSchedule(id);
    await this.redis.publish(this.keys.wake, `stop:${id}`);
  }

  /** How pause, remove and update reach occurrences committed to BullMQ ahead (staged-controls.ts). */
  private get staged(): StagedControlContext {
    const { store, redis, keys, history } = this;
    return { store, redis, keys, history, queue: (n) => this.queue(n), triggerOf: (d) => this.triggerOf(d) };
  }

  private triggerOf(def: ScheduleDefinition): Trigger | undefined {
    if (def.trigger.type === 'custom') return customTriggerOf(this.local.get(def.id));
    return triggerFromJSON(def.trigger);
  }

  private get reads(): ReadContext {
    return {
      store: this.store,
      redis: this.redis,
      keys: this.keys,
      local: this.local,
      triggerOf: (def) => this.triggerOf(def),
      handle: (def, trigger) => new ScheduledJob(this, def, trigger, undefined, []),
      pauseNotes: (ids) => this.pauseNotes.getMany(ids),
    };
  }
}
