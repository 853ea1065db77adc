import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import {
  BullbeatError,
  createWorker,
  ScheduleOptionsError,
  type SchedulerManager,
  type WorkerHandle,
} from '../src/index.js';
import { internalsOf } from '../src/internal.js';
import type { ResolvedBullbeatModuleOptions } from './bullbeat-module-options.js';
import { BULLBEAT_SCHEDULES, type MethodSchedule } from './schedule-decorators.js';

/** A decorated method found on a provider instance. */
interface FoundSchedule {
  instance: object;
  className: string;
  methodName: string;
  /** Which of the method's decorators (a method may carry several, each with its own id). */
  index: number;
  schedule: MethodSchedule;
}

// biome-ignore lint/suspicious/noExplicitAny: a provider method takes whatever it declares
type AnyMethod = (...args: any[]) => unknown;

/**
 * Finds the `@Cron()` / `@Every()` / `@Schedule()` methods of the application's providers and
 * controllers when the application boots, defines them on the manager (called on their provider
 * instance, so they use what Nest injected), then starts the configured roles; stops them when the
 * application shuts down.
 */
export class BullbeatRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  private worker: WorkerHandle | undefined;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly options: ResolvedBullbeatModuleOptions,
  ) {}

  get manager(): SchedulerManager {
    return this.options.manager;
  }

  async onApplicationBootstrap(): Promise<void> {
    const ids = this.define(this.discover());
    try {
      await this.manager.start();
      if (this.options.roles.has('worker')) {
        const queues = this.options.worker.queues ?? (await this.handledQueues());
        this.worker = await createWorker(this.manager, { ...this.options.worker, queues });
        await this.worker.ready();
      }
    } catch (err) {
      // Nest calls no shutdown hook after a failed boot: release what started.
      await this.onApplicationShutdown().catch(() => undefined);
      throw err;
    }
    this.manager.logger.info(
      { roles: [...this.options.roles], schedules: ids, queues: this.worker?.queues ?? [] },
      'bullbeat/nest: started',
    );
  }

  async onApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    try {
      await worker?.close();
    } finally {
      await this.manager.stop();
      await this.manager.close();
    }
  }

  /** Every decorated method of a singleton provider or controller, once per instance. */
  private discover(): FoundSchedule[] {
    const found: FoundSchedule[] = [];
    const seen = new Set<object>();
    for (const wrapper of [...this.discovery.getProviders(), ...this.discovery.getControllers()]) {
      const instance: unknown = wrapper.instance;
      if (typeof instance !== 'object' || instance === null || seen.has(instance)) continue;
      const prototype = Object.getPrototypeOf(instance) as object | null;
      if (!prototype) continue;
      seen.add(instance);
      const className = instance.constructor?.name || String(wrapper.name);
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const method = (instance as Record<string, unknown>)[methodName];
        if (typeof method !== 'function') continue;
        const schedules = this.reflector.get<MethodSchedule[] | undefined>(BULLBEAT_SCHEDULES, method);
        if (!schedules?.length) continue;
        if (!wrapper.isDependencyTreeStatic()) {
          throw new BullbeatError(
            `bullbeat/nest: ${className}.${methodName} is scheduled, but ${className} is request-scoped or ` +
              'transient (or depends on such a provider): schedules run on singleton providers only',
          );
        }
        schedules.forEach((schedule, index) => {
          found.push({ instance, className, methodName, index, schedule });
        });
      }
    }
    return found;
  }

  /** Defines each found schedule on the manager; returns their ids. */
  private define(found: readonly FoundSchedule[]): string[] {
    const origins = new Map<string, string>();
    for (const f of found) {
      const where = `${f.className}.${f.methodName}`;
      const name = f.schedule.options.name ?? where;
      const id = f.schedule.options.id ?? name;
      const origin = `${where}#${f.index}`;
      const previous = origins.get(id);
      if (previous === origin) {
        // The same class provided twice (two modules each list it): one schedule, not two.
        this.manager.logger.warn(
          { scheduleId: id },
          `bullbeat/nest: ${f.className} has more than one instance; its schedules run on the first`,
        );
        continue;
      }
      if (previous !== undefined) {
        throw new ScheduleOptionsError(
          id,
          'id',
          `declared by ${previous.split('#')[0]} and by ${where}: give each schedule its own id`,
        );
      }
      origins.set(id, origin);
      this.defineOne(f, name, where);
    }
    return [...origins.keys()];
  }

  private defineOne(f: FoundSchedule, name: string, where: string): void {
    const method = (f.instance as Record<string, AnyMethod>)[f.methodName] as AnyMethod;
    const run: AnyMethod = (...args) => method.apply(f.instance, args);
    const s = f.schedule;
    try {
      if (s.kind === 'cron') this.manager.cron(s.expression, { ...s.options, name })(run);
      else if (s.kind === 'every') this.manager.every(s.seconds, { ...s.options, name })(run);
      else this.manager.schedule(run, s.trigger, { ...s.options, name });
    } catch (err) {
      if (err instanceof ScheduleOptionsError) throw err;
      const decorator = s.kind === 'cron' ? 'Cron' : s.kind === 'every' ? 'Every' : 'Schedule';
      throw new ScheduleOptionsError(
        s.options.id ?? name,
        `@${decorator}() on ${where}`,
        (err as Error).message ?? String(err),
        { cause: err },
      );
    }
  }

  /**
   * The queues a worker serves by default: those of the schedules whose job name has a method here
   * (declared in code, or added at run time under such a name), else the manager's default queue.
   */
  private async handledQueues(): Promise<string[]> {
    const queues = new Set<string>();
    for (const name of internalsOf(this.manager).handlerNames()) {
      const entry = internalsOf(this.manager).handlerFor(name);
      if (entry) queues.add(entry.job.queue);
    }
    for (const job of await this.manager.list()) {
      if (internalsOf(this.manager).handlerFor(job.name)) queues.add(job.queue);
    }
    if (queues.size === 0) queues.add(internalsOf(this.manager).options.defaultQueue);
    return [...queues].sort();
  }
}
