import type { Logger } from 'pino';
import { ScheduleOptionsError } from '../../errors/index.js';
import type { HandlerEntry } from '../../queue/worker-scheduler.js';
import { checkHandleOptions, type HandleOptions, type ScheduledJob } from '../contract/index.js';
import { NamedHandler } from './named-handler.js';
import { handlerDecorator } from './schedule-decorator.js';
import type { HandlerDecorator } from './scheduler-manager-types.js';

type AnyFn = (...args: never[]) => unknown;

/**
 * What this process defines: its schedules by id, the code schedules by job name, and the handlers
 * registered by name with `handle()`. A worker in this process asks it for the handler of a job.
 */
export class LocalSchedules {
  /** The schedules this process defines (code and runtime), by id. */
  readonly byId = new Map<string, ScheduledJob>();
  /** The code schedules by job name (a removed one leaves it). */
  readonly byName = new Map<string, ScheduledJob>();
  /** Handlers registered by job name with `handle()` (no schedule). */
  private readonly handlers = new Map<string, NamedHandler>();

  /** `logger`: the manager's logger at the time of each line (the CLI gives a jobs module's manager its own). */
  constructor(private readonly logger: () => Logger) {}

  /** Keep a newly defined schedule; the last definition of an id wins. */
  add(job: ScheduledJob): void {
    const previous = this.byId.get(job.id);
    if (previous) {
      this.logger().warn(
        { scheduleId: job.id },
        'bullbeat: schedule id defined twice; the last definition wins',
      );
      if (this.byName.get(previous.name) === previous) this.byName.delete(previous.name);
    }
    this.byId.set(job.id, job);
    if (job.fn) this.byName.set(job.name, job);
  }

  /** An updated schedule replaces the one this process defined (`mine`). */
  replace(mine: ScheduledJob, job: ScheduledJob): void {
    this.byId.set(job.id, job);
    if (this.byName.get(mine.name) === mine) this.byName.delete(mine.name);
    if (job.fn) this.byName.set(job.name, job);
  }

  /** The code schedules, to upsert at start. */
  code(): ScheduledJob[] {
    return [...this.byId.values()].filter((j) => j.def.source === 'code');
  }

  /** The queues of the schedules defined here. */
  queues(): Set<string> {
    return new Set([...this.byId.values()].map((j) => j.def.queue));
  }

  /** `handle(name, fn, options)`, or `handle(name?, options)`: a decorator that registers the method. */
  handle(
    name: string | undefined,
    fnOrOptions: AnyFn | HandleOptions | undefined,
    options: HandleOptions,
    defaultQueue: string,
  ): undefined | HandlerDecorator {
    if (typeof fnOrOptions === 'function') {
      this.register(name, fnOrOptions, options, defaultQueue);
      return undefined;
    }
    const given = fnOrOptions ?? {};
    checkHandleOptions(name, given, false);
    return handlerDecorator((n: string, fn: AnyFn) => this.register(n, fn, given, defaultQueue), name);
  }

  /** Register `handle(name, fn)`; a name registered twice is refused, naming it. */
  register(name: string | undefined, fn: AnyFn, options: HandleOptions, defaultQueue: string): void {
    const checked = checkHandleOptions(name, options);
    if (typeof fn !== 'function') throw new ScheduleOptionsError(checked, 'fn', 'must be a function');
    if (this.handlers.has(checked)) {
      throw new ScheduleOptionsError(checked, 'name', 'already has a handler registered with handle()');
    }
    const queue = options.queue ?? defaultQueue;
    this.handlers.set(checked, new NamedHandler(checked, queue, fn, options.middleware ?? [], this.logger));
  }

  /** See `SchedulerManager.handlerFor`. */
  handlerFor(
    name: string,
    scheduleId?: string,
  ): (HandlerEntry & { job: ScheduledJob | NamedHandler }) | undefined {
    const own = scheduleId === undefined ? undefined : this.byId.get(scheduleId);
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
  private sameName(name: string, fn: AnyFn): string[] {
    const ids: string[] = [];
    for (const j of this.byId.values()) if (j.name === name && j.fn && j.fn !== fn) ids.push(j.id);
    return ids;
  }

  /** Names with a handler in this process (code schedules' and `handle()`'s). */
  handlerNames(): string[] {
    return [...new Set([...this.byName.keys(), ...this.handlers.keys()])];
  }
}
