import { BullbeatError } from './bullbeat-error.js';

/**
 * A label selector that does not parse. `field` names where it came from (`selector`, `--selector`),
 * `position` the character (0-based) at which the reading stopped:
 * `selector: "tenant=acme,,": expected a label key at 12`.
 */
export class SelectorError extends BullbeatError {
  override name = 'SelectorError';

  constructor(
    readonly field: string,
    readonly selector: string,
    readonly reason: string,
    readonly position: number,
  ) {
    super(`${field}: ${JSON.stringify(selector)}: ${reason} at ${position}`);
  }
}
