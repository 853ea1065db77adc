import { BullbeatError } from './bullbeat-error.js';

/** A run of a schedule that outlived its deadline (`timeoutMs` or `timeoutMiddleware`). */
export class TimeoutError extends BullbeatError {
  override name = 'TimeoutError';

  constructor(
    readonly scheduleId: string,
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`schedule "${scheduleId}" timed out after ${timeoutMs} ms`, options);
  }
}
