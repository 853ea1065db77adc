import { BullbeatError } from './bullbeat-error.js';

/**
 * A run stopped because a newer occurrence of its schedule came due under `overlap: 'cancelOther'`:
 * its signal aborts with this error, and its record says `cancelled`.
 */
export class RunCancelledError extends BullbeatError {
  override name = 'RunCancelledError';

  constructor(readonly scheduleId: string) {
    super(`schedule "${scheduleId}": cancelled by a newer occurrence (overlap: cancelOther)`);
  }
}
