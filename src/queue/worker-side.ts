import { ConfigError } from '../errors/index.js';
import type { WorkerScheduler } from './worker-scheduler.js';

/**
 * The worker side of each `SchedulerManager`: what the worker runtime asks of a manager (its prefix,
 * connection and handlers), kept here rather than as public members of the manager. A manager records
 * its own when it is made; `createWorker` looks it up.
 */
const sides = new WeakMap<object, WorkerScheduler>();

/** Record `owner`'s worker side (the manager's constructor does). */
export function registerWorkerSide(owner: object, side: WorkerScheduler): void {
  sides.set(owner, side);
}

/**
 * The worker side of `scheduler`: a manager's recorded one, or `scheduler` itself when it has the
 * members a worker needs (a stand-in made by hand: prefix, connectionOptions, handlerFor, handlerNames).
 */
export function workerSideOf(scheduler: object): WorkerScheduler {
  const side = sides.get(scheduler);
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
