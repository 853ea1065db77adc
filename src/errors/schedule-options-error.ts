import { BullbeatError } from './bullbeat-error.js';

/**
 * Options that a schedule (or a scheduler manager) cannot work with. `field` names the bad option
 * and `scheduleId` the schedule, when there is one:
 * `schedule "nightly": maxInstances: must be an integer >= 0, got -1`.
 */
export class ScheduleOptionsError extends BullbeatError {
  override name = 'ScheduleOptionsError';

  constructor(
    readonly scheduleId: string | undefined,
    readonly field: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${scheduleId === undefined ? 'scheduler' : `schedule "${scheduleId}"`}: ${field}: ${reason}`,
      options,
    );
  }
}
