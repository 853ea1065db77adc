import { BullbeatError } from './bullbeat-error.js';

/**
 * A job whose name has no handler in this worker. The job is failed and kept, so it can be retried
 * (from Bull Board, say) once a worker with that handler is deployed.
 */
export class UnknownHandlerError extends BullbeatError {
  override name = 'UnknownHandlerError';

  constructor(
    readonly jobName: string,
    readonly queue: string,
    options?: { cause?: unknown },
  ) {
    super(
      `no handler for job "${jobName}" on queue "${queue}" in this worker (the job is kept: retry it once the handler is deployed)`,
      options,
    );
  }
}
