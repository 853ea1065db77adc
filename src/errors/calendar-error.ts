import { BullbeatError } from './bullbeat-error.js';

/**
 * A named calendar that cannot be defined, read or used. `field` names the bad input (`dates[3]`,
 * `rules[0]`, `ics`, `name`, `calendar`) and `calendar` the calendar:
 * `calendar "us-market-days": rules[0]: unknown rule "weekend days"`.
 */
export class CalendarError extends BullbeatError {
  override name = 'CalendarError';

  constructor(
    readonly calendar: string,
    readonly field: string,
    /** What is wrong with `field`, without the `calendar "name": field: ` prefix of `message`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`calendar "${calendar}": ${field}: ${reason}`, options);
  }
}
