import type { RedisOptions } from 'ioredis';
import pino from 'pino';
import type { Middleware } from '../../src/queue/pipeline.js';
import type { HandlerEntry, WorkerScheduler } from '../../src/queue/worker-scheduler.js';
import { REDIS } from '../redis-url.js';

/**
 * The part of a SchedulerManager the worker runtime needs, as a plain object: handlers by name, the
 * prefix and the connection. Used by tests (and their child worker processes) that enqueue
 * occurrences themselves.
 */
export class StandInScheduler implements WorkerScheduler {
  readonly logger = pino({ level: process.env.BB_TEST_LOG ?? 'silent' });
  readonly events: { event: string; payload: unknown }[] = [];
  private readonly handlers = new Map<string, HandlerEntry>();

  constructor(
    readonly prefix: string,
    private readonly queues: string[] = ['bullbeat'],
  ) {}

  connectionOptions(): RedisOptions {
    return { ...REDIS };
  }

  /**
   * Register `fn` under `name` (the BullMQ job name; also the schedule id unless given), for jobs of
   * `queue` (default: the first queue given to the constructor).
   */
  register(
    name: string,
    fn: (...args: never[]) => unknown,
    options: { id?: string; args?: unknown[]; middleware?: Middleware[]; queue?: string } = {},
  ): this {
    this.handlers.set(name, {
      fn,
      args: options.args ?? [],
      middleware: options.middleware ?? [],
      job: { id: options.id ?? name, name, queue: options.queue ?? this.queues[0] ?? 'bullbeat' },
    });
    return this;
  }

  handlerFor(name: string): HandlerEntry | undefined {
    return this.handlers.get(name);
  }

  handlerNames(): string[] {
    return [...this.handlers.keys()];
  }

  /** Every queue it was given, handled or not (what a scheduler's schedules would use). */
  queueNames(): string[] {
    return this.queues;
  }

  emit(event: string, payload: unknown): boolean {
    this.events.push({ event, payload });
    return true;
  }
}
