import { BullbeatError } from './bullbeat-error.js';

/** A jobs module that cannot be found or loaded, or whose exports hold no scheduler. */
export class JobsModuleError extends BullbeatError {
  override name = 'JobsModuleError';

  constructor(
    /** The module's path, as resolved. */
    readonly path: string,
    /** What is wrong, without the `jobs module "path": ` prefix of `message`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`jobs module "${path}": ${reason}`, options);
  }
}
