import { BullbeatError } from './bullbeat-error.js';

/**
 * A command on one of bullbeat's own Redis clients got no answer within `commandTimeoutMs`: Redis is
 * down, unreachable, paused, or a cluster node it was queued for died. The command may still run if
 * Redis takes it later (a timeout does not take back what was sent); the paths that send one treat it
 * as any failed write (a fire loop's claims lapse and are claimed again, a run's lease lapses).
 */
export class RedisCommandTimeoutError extends BullbeatError {
  override name = 'RedisCommandTimeoutError';

  constructor(
    /** The command's name (`evalsha`, `hget`...). */
    readonly command: string,
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`redis: ${command} got no answer within ${timeoutMs} ms (commandTimeoutMs)`, options);
  }
}
