import { BullbeatError } from './bullbeat-error.js';

/** An operation named a schedule id that is not in Redis. */
export class ScheduleNotFoundError extends BullbeatError {
  override name = 'ScheduleNotFoundError';

  constructor(
    readonly scheduleId: string,
    options?: { cause?: unknown },
  ) {
    super(`no schedule with id "${scheduleId}"`, options);
  }
}
