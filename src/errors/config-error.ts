import { BullbeatError } from './bullbeat-error.js';

/**
 * A setting (a command-line flag or an environment variable) with a value bullbeat cannot use.
 * `setting` names it as the user wrote it (`--concurrency`, `REDIS_URL`).
 */
export class ConfigError extends BullbeatError {
  override name = 'ConfigError';

  constructor(
    readonly setting: string,
    /** What is wrong with it, without the `setting: ` prefix of `message`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${setting}: ${reason}`, options);
  }
}
