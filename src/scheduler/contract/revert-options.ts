import type { AuditChange } from '../../store/index.js';
import type { ChangeOptions } from './change-options.js';
import type { ScheduledJob } from './scheduled-job.js';

/** Options of `revert(id, options)`. */
export interface RevertOptions extends ChangeOptions {
  /**
   * The audit entry of this schedule whose definition to go back to (its `id`, as `auditTrail(id)` and
   * `schedule:history` show it): the definition that change made. An entry of another schedule, one
   * that no longer exists, or one that carries no definition (a pause, a trigger...) is refused.
   * @defaultValue the definition before the schedule's last change of definition
   */
  to?: string;
}

/** What `revert(id)` did. */
export interface RevertResult {
  /** The schedule as stored after the revert. */
  job: ScheduledJob;
  /** The audit entry reverted to (`to`), or whose change was undone (the default). */
  entry: string;
  /** The fields the revert changed, stored value first; empty when it was already so (nothing written). */
  changes: AuditChange[];
}
