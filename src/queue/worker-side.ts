import { ConfigError } from '../errors/index.js';
import type { WorkerScheduler } from './worker-scheduler.js';

/**
 * The worker side of a `SchedulerManager`: what the worker runtime asks of a manager (its prefix,
 * connection and handlers), kept off the manager's public face, under a symbol of the global registry
 * (non-enumerable): a manager made by one copy of bullbeat (a jobs module's) is read by another (the
 * CLI's) alike. A manager records its own when it is made; `createWorker` looks it up.
 */
const WORKER_SIDE = Symbol.for('bullbeat.workerSide');

/** Record `owner`'s worker side (the manager's constructor does). */
export function registerWorkerSide(owner: object, side: WorkerScheduler): void {
  Object.defineProperty(owner, WORKER_SIDE, { value: side });
}

/**
 * The worker side of `scheduler`: a manager's recorded one, or `scheduler` itself when it has the
 * members a worker needs (a stand-in made by hand: prefix, connectionOptions, handlerFor, handlerNames).
 */
export function workerSideOf(scheduler: object): WorkerScheduler {
  const side = (scheduler as { [WORKER_SIDE]?: WorkerScheduler })[WORKER_SIDE];
  if (side) return side;
  const s = scheduler as Partial<WorkerScheduler>;
  if (
    typeof s.prefix === 'string' &&
    typeof s.connectionOptions === 'function' &&
    typeof s.handlerFor === 'function' &&
    typeof s.handlerNames === 'function'
  ) {
    return scheduler as WorkerScheduler;
  }
  throw new ConfigError('createWorker scheduler', 'expected a SchedulerManager');
}
