import type { Middleware } from '../../queue/pipeline.js';

/**
 * Options of `handle(name, fn, options)`: a worker handler for a job name, without a schedule.
 * Checked with the store's field rules (`name`, `queue`), as a schedule's are.
 */
export interface HandleOptions {
  /**
   * The queue its jobs come on: a worker of this module serves it by default (as it serves the
   * queue of every stored schedule of this job name, whatever this option says).
   * @defaultValue the manager's `defaultQueue` (named after its prefix: `'bullbeat'` by default)
   */
  queue?: string;
  /**
   * Middleware around the handler (`timeoutMiddleware`, `retryMiddleware`, your own `(handler, job) =>
   * handler`), first listed outermost.
   * @defaultValue `[]`
   */
  middleware?: Middleware[];
}
