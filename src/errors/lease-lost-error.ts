import { BullbeatError } from './bullbeat-error.js';

/**
 * A run aborted because a lease it held was found given away on renewal: its worker stalled longer
 * than the lease TTL and another run took the slot (or the exclusion group), so this one stops to
 * keep `maxInstances` and the group's one-at-a-time rule.
 */
export class LeaseLostError extends BullbeatError {
  override name = 'LeaseLostError';

  constructor(
    readonly scheduleId: string,
    /** The lease's Redis key. */
    readonly set: string,
    options?: { cause?: unknown },
  ) {
    super(
      `schedule "${scheduleId}": the run lost its lease ${set} (its worker stalled longer than the lease TTL and the slot went to another run); aborted`,
      options,
    );
  }
}
