import type { Server } from 'node:http';
import type { SchedulerManagerOptions } from '../contract/index.js';
import { SchedulerManager } from './scheduler-manager.js';

/** The slice of an Express app that `setupScheduler` uses. */
export interface ExpressLike {
  locals: Record<string, unknown>;
  listen: (...args: never[]) => Server;
}

const WIRED = Symbol.for('bullbeat.setupScheduler');

/**
 * Tie a manager to an Express app's lifecycle (Sillo's `setup_scheduler(app)`); the one way in is
 * still `new SchedulerManager(options)`, which this makes when given options. Idempotent; the manager
 * lives in `app.locals.scheduler`.
 * Express has no startup/shutdown hooks, so `app.listen` is wrapped: the manager starts when the
 * server is listening and stops when the server closes. A manager may be passed in (the jobs
 * module's); otherwise one is created from `options`. A second call returns the first manager.
 */
export function setupScheduler(
  app: ExpressLike,
  managerOrOptions?: SchedulerManager | SchedulerManagerOptions,
): SchedulerManager {
  const existing = app.locals.scheduler;
  if (existing instanceof SchedulerManager) return existing;
  const manager =
    managerOrOptions instanceof SchedulerManager
      ? managerOrOptions
      : new SchedulerManager(managerOrOptions ?? {});
  app.locals.scheduler = manager;
  const holder = app as ExpressLike & { [WIRED]?: boolean };
  if (!holder[WIRED]) {
    holder[WIRED] = true;
    const listen = app.listen.bind(app) as (...args: unknown[]) => Server;
    app.listen = ((...args: unknown[]) => {
      const server = listen(...args);
      server.once('listening', () => {
        manager.start().catch((err) => manager.logger.error({ err }, 'bullbeat: scheduler failed to start'));
      });
      server.once('close', () => {
        manager.stop().catch((err) => manager.logger.error({ err }, 'bullbeat: scheduler failed to stop'));
      });
      return server;
    }) as ExpressLike['listen'];
  }
  return manager;
}
