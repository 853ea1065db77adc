import { BullbeatError } from './bullbeat-error.js';

/**
 * A job that names no schedule of this worker, whose name is that of several different functions here
 * (schedules defined in code on functions of the same name): running any of them could run the wrong
 * code, so the job is failed and kept. Each of those schedules' own jobs runs its own function.
 */
export class AmbiguousHandlerError extends BullbeatError {
  override name = 'AmbiguousHandlerError';

  constructor(
    readonly jobName: string,
    /** The schedules whose functions share the name. */
    readonly scheduleIds: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(
      `job "${jobName}" names no schedule of this worker, and ${scheduleIds.length} schedules here run different functions named "${jobName}" (${scheduleIds.map((id) => `"${id}"`).join(', ')}): give them different names, or register the one to run with handle("${jobName}")`,
      options,
    );
  }
}
