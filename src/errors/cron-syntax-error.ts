import { BullbeatError } from './bullbeat-error.js';

/** The cron field an error is about, or `expression` when it is about the whole text. */
export type CronField =
  | 'expression'
  | 'second'
  | 'minute'
  | 'hour'
  | 'day-of-month'
  | 'month'
  | 'day-of-week'
  | 'timezone';

/**
 * A cron expression that cannot be parsed, or that can never fire.
 * The message says where: `cron "0 0 32 * *": day-of-month "32": out of range 1-31`.
 */
export class CronSyntaxError extends BullbeatError {
  override name = 'CronSyntaxError';

  constructor(
    readonly expression: string,
    readonly field: CronField,
    readonly text: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    const where = field === 'expression' ? '' : `${field} "${text}": `;
    super(`cron "${expression}": ${where}${reason}`, options);
  }
}
