import type pino from 'pino';
import {
  composePipeline,
  inProcessRunContext,
  type Middleware,
  type RunContext,
} from '../../queue/pipeline.js';
import type {
  OverlapPolicy,
  PauseNote,
  ScheduleDefinition,
  ScheduleErrorInfo,
  ScheduleState,
} from '../../store/index.js';
import { ScheduleStatus, spreadOffsetMs, statusOf } from '../../store/index.js';
import type { Trigger } from '../../triggers/trigger.js';
import type { PauseOptions } from './pause-options.js';
import type { ResumeOptions } from './resume-options.js';

/** What a `ScheduledJob` asks of its manager. */
export interface ScheduledJobHost {
  pause(id: string, options?: PauseOptions): Promise<boolean>;
  resume(id: string, options?: ResumeOptions): Promise<boolean>;
  remove(id: string): Promise<boolean>;
  triggerNow(id: string): Promise<{ jobId: string; fireAt: number }>;
  refreshJob(job: ScheduledJob): Promise<boolean>;
  readonly logger: pino.Logger;
}

/**
 * A schedule as plain JSON (`ScheduledJob.toJSON()`): its id, name, status, trigger, next fire time, run
 * counters and options, with epoch-ms times (the fields of Sillo's `to_dict`, in camelCase, and more).
 */
export interface ScheduledJobJSON {
  id: string;
  name: string;
  status: ScheduleStatus;
  /** The trigger's class name: `CronTrigger`, `IntervalTrigger`, ... (Sillo's `type(trigger).__name__`). */
  trigger: string;
  /**
   * The next run (epoch ms), null when not active: on a named calendar, the occurrence with the
   * calendar's current version applied (an `onExcluded` roll included).
   */
  nextRunTime: number | null;
  /**
   * When the scheduler next wakes for it (its stored due time), present only when that is not
   * `nextRunTime`: a schedule on a calendar whose `onExcluded` roll (or excluded day) moves the run.
   */
  wakeUpTime?: number | null;
  runs: number;
  errors: number;
  maxInstances: number;
  /** Its overlap policy. */
  overlap: OverlapPolicy;
  /**
   * `overlap: 'skip'` with one run at a time (Sillo's `coalesce`).
   * @deprecated Read `overlap` (and `maxInstances`).
   */
  coalesce: boolean;
  lastRunTime: number | null;
  createdAt: number | null;
  /** Runs going on right now across every worker (live leases). */
  activeInstances: number;
  queue: string;
  source: 'code' | 'runtime';
  /** True when a code schedule is paused because no deployed code defines it any more. */
  orphaned: boolean;
  /** The trigger's JSON (or `{ type: 'custom' }`). */
  spec: ScheduleDefinition['trigger'];
  skipped: number;
  missed: number;
  /** Occurrences not enqueued while the previous one still waited in its queue (backpressure). */
  coalesced: number;
  /** Runs enqueued so far. */
  fired: number;
  /** Why it is errored (status `errored`), else null. */
  error: ScheduleErrorInfo | null;
  /** While paused: why, who paused it and when (null when active, or paused with no note stored). */
  pauseNote: PauseNote | null;
  /**
   * With `spread`: the window (ms), this schedule's offset in it (ms, the same on every replica and
   * restart) and when the next occurrence fires (`nextRunTime`, its nominal time, plus the offset).
   */
  spread?: { ms: number; offsetMs: number; nextFiresAt: number | null };
  /** Its labels (`{}` when none). */
  labels: Readonly<Record<string, string>>;
}

/**
 * One schedule: a handler (or a queue target) bound to a trigger. Fields mirror Redis as of the last
 * `refresh()` (the manager's `get`/`list` return fresh ones); `run()` runs the handler in this process.
 */
export class ScheduledJob {
  status: ScheduleStatus = ScheduleStatus.ACTIVE;
  /**
   * The next run (epoch ms), null when not active. On a named calendar, the occurrence with the
   * calendar's current version applied (a roll by `onExcluded` included), which may differ from
   * `wakeUpTime`; `schedule:list`, `schedule:show` and the dashboard show the same.
   */
  nextRunTime: number | null = null;
  /**
   * When the scheduler next wakes for it: its stored due time, null when not active. The same as
   * `nextRunTime` except on a named calendar, where the fire loop wakes at the wrapped trigger's
   * instant (or earlier, for `onExcluded: 'previous'`) and applies the calendar it reads then.
   */
  wakeUpTime: number | null = null;
  lastRunTime: number | null = null;
  createdAt: number | null = null;
  runs = 0;
  errors = 0;
  skipped = 0;
  missed = 0;
  coalesced = 0;
  fired = 0;
  activeInstances = 0;
  orphaned = false;
  /** Why it cannot be planned or enqueued, while its status is `errored` (null otherwise). */
  error: ScheduleErrorInfo | null = null;
  /** While paused: why, who paused it and when (`pause(id, { note })`); null otherwise. */
  pauseNote: PauseNote | null = null;
  /** How many calls of `run()` in this process are going on now (Sillo's `current_instances`). */
  currentInstances = 0;
  /** Settles when the definition is in Redis (code schedules: at `start()`). */
  saved: Promise<void> = Promise.resolve();

  /** @internal The stored definition (the package's own readers use it; a user reads the getters). */
  def: ScheduleDefinition;
  /** @internal The local function, when this process defines one. */
  readonly fn: ((...args: never[]) => unknown) | undefined;
  /** @internal The schedule's middleware, run around `fn`. */
  readonly middleware: readonly Middleware[];
  private readonly host: ScheduledJobHost;

  /** @internal A handle is made by the manager (`schedule`, `get`, `list`), not by a user. */
  constructor(
    host: ScheduledJobHost,
    def: ScheduleDefinition,
    readonly trigger: Trigger,
    fn: ((...args: never[]) => unknown) | undefined,
    middleware: readonly Middleware[] = [],
  ) {
    this.host = host;
    this.def = def;
    this.fn = fn;
    this.middleware = middleware;
  }

  get id(): string {
    return this.def.id;
  }
  get name(): string {
    return this.def.name;
  }
  get queue(): string {
    return this.def.queue;
  }
  get args(): readonly unknown[] {
    return this.def.args;
  }
  get maxInstances(): number {
    return this.def.run.maxInstances;
  }
  /** Its overlap policy (`overlap` option; `'skip'` by default). */
  get overlap(): OverlapPolicy {
    return this.def.run.overlap;
  }
  /**
   * Whether an occurrence is skipped while any run of the schedule is going: `overlap: 'skip'` with one
   * run at a time (Sillo's `coalesce`).
   * @deprecated Read `overlap` (and `maxInstances`).
   */
  get coalesce(): boolean {
    return this.def.run.slot.mode === 'skip' && this.def.run.slot.cap === 1;
  }
  /** Its labels (`labels` option; `{}` when none). */
  get labels(): Readonly<Record<string, string>> {
    return this.def.labels ?? {};
  }

  /** @internal Copy a stored state into this handle. */
  applyState(state: ScheduleState, next: number | null, error: ScheduleErrorInfo | null = null): void {
    this.status = statusOf(state);
    this.orphaned = state.status === 'o';
    this.error = state.status === 'e' ? error : null;
    this.nextRunTime = state.status === 'a' ? next : null;
    this.wakeUpTime = this.nextRunTime;
    this.lastRunTime = state.lastFireAt;
    this.createdAt = state.createdAt || null;
    this.fired = state.fired;
  }

  /** Run the handler now, in this process, under its middleware (Sillo's `run()`); no queue involved. */
  async run(ctx: Partial<RunContext> = {}): Promise<unknown> {
    if (!this.fn)
      throw new TypeError(`schedule "${this.id}" has no local function to run (it targets a queue)`);
    const handler = await composePipeline(
      this.fn as (...args: unknown[]) => unknown,
      this.def.args,
      this.middleware,
      {
        id: this.id,
        name: this.name,
      },
    );
    this.currentInstances++;
    try {
      const result = await handler(
        inProcessRunContext(this.id, this.name, this.host.logger.child({ scheduleId: this.id }), ctx),
      );
      this.runs++;
      return result;
    } catch (err) {
      this.errors++;
      throw err;
    } finally {
      this.currentInstances--;
    }
  }

  pause(options?: PauseOptions): Promise<boolean> {
    return this.host.pause(this.id, options);
  }
  resume(options?: ResumeOptions): Promise<boolean> {
    return this.host.resume(this.id, options);
  }
  remove(): Promise<boolean> {
    return this.host.remove(this.id);
  }
  triggerNow(): Promise<{ jobId: string; fireAt: number }> {
    return this.host.triggerNow(this.id);
  }
  /** Reload status, times and counters from Redis; false if the schedule is gone. */
  async refresh(): Promise<boolean> {
    return this.host.refreshJob(this);
  }

  toJSON(): ScheduledJobJSON {
    return {
      id: this.id,
      name: this.name,
      status: this.status,
      trigger:
        this.def.trigger.type === 'custom'
          ? this.def.trigger.kind
          : (this.trigger.constructor?.name ?? this.def.trigger.type),
      nextRunTime: this.nextRunTime,
      ...(this.wakeUpTime !== this.nextRunTime && { wakeUpTime: this.wakeUpTime }),
      runs: this.runs,
      errors: this.errors,
      maxInstances: this.maxInstances,
      overlap: this.overlap,
      coalesce: this.coalesce,
      lastRunTime: this.lastRunTime,
      createdAt: this.createdAt,
      activeInstances: this.activeInstances,
      queue: this.queue,
      source: this.def.source,
      orphaned: this.orphaned,
      spec: this.def.trigger,
      skipped: this.skipped,
      missed: this.missed,
      coalesced: this.coalesced,
      fired: this.fired,
      error: this.error,
      pauseNote: this.pauseNote,
      ...(this.def.spreadMs !== undefined && { spread: spreadOf(this.def, this.nextRunTime) }),
      labels: this.labels,
    };
  }
}

/** A spread schedule's window, offset and next firing instant (`ScheduledJobJSON.spread`). */
function spreadOf(def: ScheduleDefinition, next: number | null) {
  const offsetMs = spreadOffsetMs(def.id, def.spreadMs);
  return { ms: def.spreadMs as number, offsetMs, nextFiresAt: next === null ? null : next + offsetMs };
}
