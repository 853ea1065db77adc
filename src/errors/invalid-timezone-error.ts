import { BullbeatError } from './bullbeat-error.js';

/** An IANA time zone name that this runtime does not know. */
export class InvalidTimezoneError extends BullbeatError {
  override name = 'InvalidTimezoneError';

  constructor(
    readonly timezone: string,
    options?: { cause?: unknown },
  ) {
    super(
      `unknown time zone "${timezone}" (expected an IANA name such as "Europe/London" or "UTC")`,
      options,
    );
  }
}
