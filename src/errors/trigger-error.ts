import { BullbeatError } from './bullbeat-error.js';

/** A trigger built or deserialized with values it cannot work with. `field` names the bad one. */
export class TriggerError extends BullbeatError {
  override name = 'TriggerError';

  constructor(
    readonly trigger: string,
    readonly field: string,
    /** What is wrong with `field`, without the `trigger: field: ` prefix of `message`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${trigger}: ${field}: ${reason}`, options);
  }
}
