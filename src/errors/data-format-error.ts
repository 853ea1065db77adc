import { BullbeatError } from './bullbeat-error.js';

/**
 * The deployment's data in Redis is in a format newer than this process knows: a newer bullbeat
 * release wrote it, and this one would misread or damage it, so it refuses to start. `stored` is the
 * deployment's format, `known` the newest this release reads and writes, `key` where it is recorded.
 */
export class DataFormatError extends BullbeatError {
  override name = 'DataFormatError';

  constructor(
    /** The deployment's data format, as recorded in Redis. */
    readonly stored: number,
    /** The newest format this release reads and writes (`DATA_FORMAT`). */
    readonly known: number,
    /** The key that records it (`{<prefix>}:bb:format`). */
    readonly key: string,
  ) {
    super(
      `this deployment's data is in format ${stored} (${key}), newer than format ${known}, the newest this ` +
        `bullbeat release knows: a newer release wrote it. Run this process on that newer release (as the ` +
        'deployment\'s other processes do: "bullbeat status" lists their versions); a process never writes ' +
        'a format it does not know, and a format is never moved back (docs/upgrading.md)',
    );
  }
}
