import { type DueAware, earliestDue } from './earliest-due.js';
import { toEpochMs } from './instant-bounds.js';
import type { DateTriggerJSON, SerializableTrigger } from './trigger.js';

/**
 * Fires once, at `at`. It answers `at` as long as it has not fired at or after it, even when `at`
 * is already in the past: what to do with a late occurrence is the scheduler's misfire policy, not
 * the trigger's. After that it is exhausted (`null`).
 */
export class DateTrigger implements SerializableTrigger, DueAware {
  /** The fire time (whole epoch ms, in the range of `instant-bounds.ts`; a fraction is rounded up). */
  readonly at: number;

  constructor(at: number | Date) {
    this.at = toEpochMs(at, 'DateTrigger', 'at', 'instant');
  }

  nextFire(lastFire: number | null, _now: number): number | null {
    return lastFire === null || lastFire < this.at ? this.at : null;
  }

  /** Inside an AND a date is due only at `at`. */
  [earliestDue](x: number): number | null {
    return this.at >= x ? this.at : null;
  }

  toJSON(): DateTriggerJSON {
    return { type: 'date', at: this.at };
  }
}
