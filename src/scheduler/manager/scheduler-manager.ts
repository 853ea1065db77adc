import { EventEmitter } from 'node:events';
import type pino from 'pino';
import { deprecatedTuningWarning } from '../../queue/index.js';
import type { ScheduleStatus, ScheduleStore } from '../../store/index.js';
import {
  type AuditActor,
  type AuditEntry,
  type AuditQuery,
  AuditTrail,
  type BulkChange,
  BulkTrail,
  CODE_ACTOR,
  jobOptionsFor,
  type Keys,
  keys,
  parseSelector,
  publishWake,
} from '../../store/index.js';
import type { Trigger } from '../../triggers/trigger.js';
import { type BackfillRun, runBackfill, startBackfill } from '../backfill/index.js';
import type { RevertOptions, RevertResult, SchedulePlan, TriggerNowOptions } from '../contract/index.js';
import {
  actorOf,
  type BackfillOptions,
  type BackfillResult,
  type ChangeOptions,
  type CronScheduleOptions,
  type EveryOptions,
  type HandleOptions,
  type PauseOptions,
  type ResolvedManagerOptions,
  type ResumeOptions,
  resolveManagerOptions,
  retunedOptions,
  type ScheduledJob,
  type ScheduleOptions,
  type SchedulePatch,
  type SchedulerEvents,
  type SchedulerManagerOptions,
  type ScheduleTarget,
} from '../contract/index.js';
import type { FireHooks } from '../fire/index.js';
import type { Calendars } from './calendars.js';
import { defaultLogger } from './default-logger.js';
import { cronTrigger, type DefineContext, definedJob, everyTrigger } from './define-schedule.js';
import { LocalSchedules } from './local-schedules.js';
import { ManagerConnections } from './manager-connections.js';
import { ManagerContexts } from './manager-contexts.js';
import { attachInternals, internalsOf, type ManagerInternals } from './manager-internals.js';
import { ManagerLifecycle } from './manager-lifecycle.js';
import { planSchedules } from './plan-schedules.js';
import { resumeWithPolicy } from './resume-catch-up.js';
import { type RevertHost, revertSchedule } from './revert-schedule.js';
import { pauseSchedule, removeSchedule } from './schedule-controls.js';
import { scheduleDecorator } from './schedule-decorator.js';
import { type ScheduleManyItem, scheduleMany } from './schedule-many.js';
import {
  deploymentStats,
  type ListPage,
  listPage,
  materialize,
  queueNamesOf,
  refreshHandle,
} from './schedule-reads.js';
import { type BulkResult, ScheduleSelection, type SelectionHost } from './schedule-selection.js';
import { enqueueNow, saveSchedule } from './schedule-writes.js';
import type {
  HandlerDecorator,
  HistoryAccess,
  JobFunction,
  ListQuery,
  ScheduleDecorator,
  SchedulerStats,
} from './scheduler-manager-types.js';
import { type UpdateContext, updateSchedule } from './update-schedule.js';

/**
 * The scheduler: schedules stored in Redis, safe with any number of replicas, and the one way in
 * (`new SchedulerManager({ prefix, connection })`). Define
 * schedules (`schedule`, `every`, `cron`), then `start()`: code schedules are upserted and, in the
 * scheduler role, the fire loop enqueues each occurrence exactly once onto its BullMQ queue.
 */
export class SchedulerManager extends EventEmitter<SchedulerEvents> {
  readonly logger: pino.Logger;
  /** @internal Test hooks between the steps of a fire; left out of the published types (`stripInternal`). */
  hooks: FireHooks | undefined;

  readonly #options: ResolvedManagerOptions;
  readonly #keys: Keys;
  readonly #schedules: LocalSchedules;
  readonly #connections: ManagerConnections;
  readonly #contexts: ManagerContexts;
  readonly #lifecycle: ManagerLifecycle;
  /** The deployment's named calendars: `define` (versioned, audited), `get`, `list`, `history`. */
  readonly calendars: Calendars;

  constructor(options: SchedulerManagerOptions = {}) {
    super();
    this.#options = resolveManagerOptions(options);
    this.#keys = keys(this.#options.prefix, this.#options.partitions);
    this.logger = this.#options.logger ?? defaultLogger();
    if (this.#options.deprecatedTuning.length > 0) {
      this.logger.warn(deprecatedTuningWarning('scheduler', this.#options.deprecatedTuning));
    }
    this.#connections = new ManagerConnections(this.#options, this.#keys, () => this.logger);
    this.#schedules = new LocalSchedules(() => this.logger);
    const internals = this.#internals();
    attachInternals(this, internals);
    this.#contexts = new ManagerContexts({
      manager: internals,
      options: this.#options,
      keys: this.#keys,
      connections: this.#connections,
      schedules: this.#schedules,
      publishStop: (id) => this.#publishStop(id),
    });
    const persistCode = (job: ScheduledJob) => this.#persist(job, undefined, CODE_ACTOR);
    this.#lifecycle = new ManagerLifecycle(this.#contexts, persistCode);
    this.calendars = this.#contexts.calendars;
  }

  /** The bounded run history; also callable: `history(id, limit?)` → newest records first. */
  get history(): HistoryAccess {
    return this.#connections.history;
  }

  /** The plumbing the package's own parts use (`internalsOf`): not on the public face. */
  #internals(): ManagerInternals {
    const connections = this.#connections;
    const schedules = this.#schedules;
    const logger = () => this.logger;
    const hooks = () => this.hooks;
    const lifecycle = () => this.#lifecycle;
    return {
      events: this,
      options: this.#options,
      prefix: this.#options.prefix,
      keys: this.#keys,
      partitions: this.#keys.partitions,
      get redis() {
        return connections.redis;
      },
      get alertsRedis() {
        return connections.alertsRedis;
      },
      get wakeSubscriber() {
        return connections.wakeSubscriber;
      },
      get history() {
        return connections.history;
      },
      get logger() {
        return logger();
      },
      get hooks() {
        return hooks();
      },
      get loopFootprint() {
        return lifecycle().footprint;
      },
      get loopStats() {
        return lifecycle().stats;
      },
      connectionOptions: () => connections.connectionOptions(),
      queuePrefixFor: (queue) => connections.queuePrefix(queue),
      handlerFor: (name, scheduleId) => schedules.handlerFor(name, scheduleId),
      handlerNames: () => schedules.handlerNames(),
      queueNames: async () => {
        await connections.checkPartitions(false);
        return queueNamesOf(this.#contexts.reads, this.#options.defaultQueue);
      },
      list: () => this.list(),
      get: (id) => this.get(id),
      pause: (id, options) => this.pause(id, options),
      resume: (id, options) => this.resume(id, options),
      remove: (id) => this.remove(id),
      triggerNow: (id) => this.triggerNow(id),
      refreshJob: async (job) => {
        await connections.checkPartitions(false);
        return refreshHandle(this.#contexts.reads, job);
      },
      queue: (name) => connections.queue(name),
      jobOptions: (def, jobId) => jobOptionsFor(def, jobId, this.#options.keepFinishedJobsSec),
      emit: (event, payload) => this.emit(event as keyof SchedulerEvents, payload as never),
      retune: (change) => {
        if (this.#lifecycle.running) throw new Error('bullbeat: a manager is retuned before it starts');
        const tuning = retunedOptions(this.#options, change);
        Object.assign(this.#options, tuning, { givenTuning: { ...this.#options.givenTuning, ...change } });
        return tuning;
      },
    };
  }

  private get store(): ScheduleStore {
    return this.#connections.store;
  }

  // ── defining schedules ────────────────────────────────────────────────────────────────

  /**
   * Schedule `fn` (called with `...args, ctx` by a worker) or a `{ queue, name }` target on `trigger`.
   * Returns at once; `job.saved` settles when it is in Redis (code schedules: at `start()`).
   */
  schedule(
    fnOrTarget: JobFunction | ScheduleTarget,
    trigger: Trigger,
    options: ScheduleOptions = {},
    change?: ChangeOptions,
  ): ScheduledJob {
    const job = definedJob(this.define, fnOrTarget, trigger, options, this.#lifecycle.running);
    this.#schedules.add(job);
    if (this.#lifecycle.running || typeof fnOrTarget !== 'function') {
      const saved = this.#persist(job, undefined, actorOf(job.id, change));
      saved.catch((err) =>
        this.logger.error({ err, scheduleId: job.id }, 'bullbeat: saving schedule failed'),
      );
      job.saved = saved;
    }
    return job;
  }

  /** Create or update many runtime schedules: all checked first (nothing written if one is bad), one bulk change. */
  async scheduleMany(items: readonly ScheduleManyItem[], change?: ChangeOptions): Promise<BulkResult> {
    const by = actorOf(undefined, change);
    await this.#connections.checkPartitions(true);
    const trail = new BulkTrail(this.#connections.redis, this.#keys);
    return scheduleMany({ define: this.define, writes: this.#contexts.writes, trail }, items, by);
  }

  /** The schedules a label selector picks (`tenant=acme,team!=ops`), to list or change at once. */
  select(selector: string): ScheduleSelection {
    const connections = this.#connections;
    const host: SelectionHost = {
      keys: this.#keys,
      get redis() {
        return connections.redis;
      },
      listPage: (query) => this.listPage(query),
      pause: (id, options) => this.pause(id, options),
      resume: (id, options) => this.resume(id, options),
      remove: (id, change) => this.remove(id, change),
      backfill: (id, options) => this.backfill(id, options),
    };
    return new ScheduleSelection(host, parseSelector(selector));
  }

  /** The deployment's bulk changes (by selector, `scheduleMany`), newest first, each with its count. */
  async bulkChanges(limit?: number): Promise<BulkChange[]> {
    return new BulkTrail(this.#connections.redis, this.#keys).list(limit);
  }

  /** Run every `seconds` (Sillo's `every`): `every(60)(fn)` or `@scheduler.every(60)` on a method. */
  every(seconds: number, options: EveryOptions = {}): ScheduleDecorator {
    return this.decorator(...everyTrigger(seconds, options));
  }

  /** Run on a cron expression (Sillo's `cron`): `cron('0 9 * * 1-5', { timezone })(fn)` or as a decorator. */
  cron(expression: string, options: CronScheduleOptions = {}): ScheduleDecorator {
    return this.decorator(...cronTrigger(expression, options));
  }

  private get define(): DefineContext {
    const { defaultQueue, triggerBudgetMs, alerts } = this.#options;
    const notifiers = alerts.notifiers.length > 0 ? new Set(alerts.notifiers.map((n) => n.name)) : undefined;
    return { host: internalsOf(this), defaultQueue, triggerBudgetMs, ...(notifiers && { notifiers }) };
  }

  private decorator(trigger: Trigger, options: ScheduleOptions): ScheduleDecorator {
    return scheduleDecorator((fn, t, o) => this.schedule(fn, t, o), trigger, options);
  }

  async #persist(job: ScheduledJob, ifCreatedAt: number | undefined, by: AuditActor): Promise<void> {
    await this.#connections.checkPartitions(true);
    return saveSchedule(this.#contexts.writes, job, ifCreatedAt, by);
  }

  // ── handlers for workers ─────────────────────────────────────────────────────────────

  /**
   * Register a worker handler for a job name without a schedule (`handle(name, fn)`, or `@scheduler.handle()`
   * on a method): runtime schedules' `{ queue, name }` targets run through it. A name registered twice is
   * refused; a code schedule of the same name keeps its own function.
   */
  handle(name: string, fn: JobFunction, options?: HandleOptions): void;
  handle(name?: string, options?: HandleOptions): HandlerDecorator;
  handle(
    name?: string,
    fnOrOptions?: JobFunction | HandleOptions,
    options: HandleOptions = {},
  ): undefined | HandlerDecorator {
    return this.#schedules.handle(name, fnOrOptions, options, this.#options.defaultQueue);
  }

  // ── managing schedules ───────────────────────────────────────────────────────────────

  /** Remove (cancel) a schedule and forget its history (its audit trail is kept `auditRetentionMs`). False if there was none. */
  async remove(id: string, change?: ChangeOptions): Promise<boolean> {
    await this.#connections.checkPartitions(true);
    return removeSchedule(this.#contexts.controls, id, change);
  }

  /**
   * Change a runtime schedule's trigger or options (Temporal's `ScheduleHandle.update`): merged with what
   * is stored, checked like a new schedule (nothing written when a field is bad), saved by the same upsert
   * as `schedule()` (never back in time; a changed timing re-plans). A paused one stays paused; a code
   * schedule is refused (`source`); one removed meanwhile stays removed (`ScheduleNotFoundError`).
   */
  async update(id: string, patch: SchedulePatch, change?: ChangeOptions): Promise<ScheduledJob> {
    const by = actorOf(id, change);
    await this.#connections.checkPartitions(true);
    const job = await updateSchedule(this.updates, id, patch, by);
    return (await this.get(id)) ?? job;
  }

  private get updates(): UpdateContext {
    const { define } = this;
    const contexts = this.#contexts;
    const schedules = this.#schedules;
    const persist = (job: ScheduledJob, createdAt: number, by: AuditActor) =>
      this.#persist(job, createdAt, by);
    return { store: this.store, contexts, schedules, define, persist };
  }

  /** Put a runtime schedule back to a definition of its audit trail (see `RevertOptions`), as an audited update. */
  revert(id: string, options: RevertOptions = {}): Promise<RevertResult> {
    const host: RevertHost = {
      options: this.#options,
      get: (i) => this.get(i),
      auditTrail: (i, q) => this.auditTrail(i, q),
      update: (i, p, c) => this.update(i, p, c),
    };
    return revertSchedule(host, id, options);
  }

  /**
   * What `start()` would do to the stored schedules (created, changed, orphaned, renamed-looking), and,
   * for a manager made under `bullbeat plan`, what the calendars its module defines would do to the
   * schedules on them; writes nothing.
   */
  async plan(): Promise<SchedulePlan> {
    await this.#connections.checkPartitions(false);
    const stored = await this.#contexts.calendarStore.list();
    return planSchedules(this.#connections.store, this.#options.prefix, this.#schedules.code(), {
      stored,
      collected: this.calendars.collected(),
    });
  }

  /** A fresh handle on a stored schedule, or undefined. */
  async get(id: string): Promise<ScheduledJob | undefined> {
    await this.#connections.checkPartitions(false);
    const row = await this.store.get(id);
    if (!row) return undefined;
    const [job] = await materialize(this.#contexts.reads, [row]);
    return job;
  }

  /** Every schedule, optionally of one status (Sillo's `list(status)`), or a page of them. */
  async list(query?: ScheduleStatus | ListQuery): Promise<ScheduledJob[]> {
    return (await this.listPage(typeof query === 'string' ? { status: query } : (query ?? {}))).items;
  }

  /**
   * A page of schedules sorted by name then id, with the total that matched (for dashboards); with
   * `cursor`, a page of the walk over every schedule in store order, with the next page's `cursor`
   * (none after the last page): what stays fast at a million schedules (see `ListQuery.cursor`).
   */
  async listPage(query: ListQuery = {}): Promise<ListPage> {
    await this.#connections.checkPartitions(false);
    return listPage(this.#contexts.reads, query);
  }

  /**
   * Pause an active schedule with a note (Temporal's `pause(note)`), shown with who (`by`) and when until
   * resumed. A note over 500 characters is refused (`note`). False if it was not active.
   */
  async pause(id: string, options: PauseOptions = {}): Promise<boolean> {
    await this.#connections.checkPartitions(true);
    return pauseSchedule(this.#contexts.controls, id, options);
  }

  /**
   * Resume a paused (or orphaned) schedule from the next occurrence after now (after any still claimed);
   * retry an errored one. False if it was neither. `policy` (Temporal's catch-up on unpause): `skip`
   * (default), `once` one run for all, `all` each, up to `maxCatchUp` (default: the schedule's own `maxCatchUp`, 1000 unless set; more refused), recorded
   * as `catch-up`; an unknown one is refused (`policy`). Its pause note is dropped.
   */
  async resume(id: string, options?: ResumeOptions): Promise<boolean> {
    await this.#connections.checkPartitions(true);
    return resumeWithPolicy(this.#contexts.resume, id, options);
  }

  /** Enqueue one run now, recorded as manual (its own job id); `data`/`jobOptions` override the schedule's for it. */
  async triggerNow(id: string, options?: TriggerNowOptions): Promise<{ jobId: string; fireAt: number }> {
    await this.#connections.checkPartitions(true);
    return enqueueNow(this.#contexts.enqueue, id, options);
  }

  /** Who changed schedule `id`, what and when: its audit trail, newest first (see `AuditQuery`). */
  async auditTrail(id: string, query?: AuditQuery): Promise<AuditEntry[]> {
    await this.#connections.checkPartitions(false);
    return new AuditTrail(this.#connections.redis, this.#keys).list(id, query);
  }

  /**
   * Backfill (Temporal's schedule backfill): enqueue the occurrences of `[from, to)` that nothing ran,
   * computed by the schedule's own trigger, at a bounded rate, each recorded with kind `backfill`
   * under its own job id; `dryRun` lists them and enqueues nothing. See `BackfillOptions`.
   */
  async backfill(id: string, options: BackfillOptions): Promise<BackfillResult> {
    await this.#connections.checkPartitions(true);
    return runBackfill(this.#contexts.backfills, id, options);
  }

  /** `backfill()` resolved once the range is judged (errors thrown by then), `done` settling when enqueued. */
  async startBackfill(id: string, options: BackfillOptions): Promise<BackfillRun> {
    await this.#connections.checkPartitions(true);
    return startBackfill(this.#contexts.backfills, id, options);
  }

  /** Counts over the deployment: schedules by status, runs, errors, skipped and missed occurrences, uptime. */
  async stats(): Promise<SchedulerStats> {
    await this.#connections.checkPartitions(false);
    return deploymentStats(this.store, this.#connections.history, this.#lifecycle.uptime);
  }

  // ── lifecycle ────────────────────────────────────────────────────────────────────────

  /** Upsert the code's schedules and, in the scheduler role, start firing. Safe to call twice. */
  start(): Promise<void> {
    return this.#lifecycle.start();
  }

  /** Stop firing and close connections. Safe to call twice; concurrent callers share the promise. */
  stop(): Promise<void> {
    return this.#lifecycle.stop();
  }

  /** Close connections without starting (a client that only defined or read schedules). */
  close(): Promise<void> {
    return this.#lifecycle.close();
  }

  /** True between a completed `start()` and `stop()`. */
  get running(): boolean {
    return this.#lifecycle.running;
  }

  /** Tell every replica to drop the schedule's occurrences it claimed ahead and has not enqueued. */
  async #publishStop(id: string): Promise<void> {
    this.#lifecycle.stopSchedule(id);
    await publishWake(this.#connections.redis, this.#keys, `stop:${id}`);
  }
}
