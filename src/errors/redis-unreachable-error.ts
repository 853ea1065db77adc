import { BullbeatError } from './bullbeat-error.js';

/** Redis did not answer a PING in time. `url` is the address tried, with any password masked. */
export class RedisUnreachableError extends BullbeatError {
  override name = 'RedisUnreachableError';

  constructor(
    readonly url: string,
    /** Why, in a few words (`connection refused`, `no answer within 3000 ms`). */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Redis is unreachable at ${url}: ${reason}`, options);
  }
}
