import { BullbeatError } from './bullbeat-error.js';

/** A run aborted because its worker shut down and the run outlived the grace period. */
export class WorkerShutdownError extends BullbeatError {
  override name = 'WorkerShutdownError';

  constructor(
    readonly graceMs: number,
    options?: { cause?: unknown },
  ) {
    super(`worker shut down: the run was aborted after the grace period of ${graceMs} ms`, options);
  }
}
