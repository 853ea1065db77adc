import type { ChangeOptions } from './change-options.js';

/**
 * What a resume does with the occurrences due while the schedule was paused (Temporal's
 * `catchupWindow`/`overlap` on unpause have no direct twin; Quartz calls these misfire instructions):
 * `skip` runs none of them, `once` runs one standing for all of them, `all` runs each.
 */
export const RESUME_POLICIES = ['skip', 'once', 'all'] as const;
export type ResumePolicy = (typeof RESUME_POLICIES)[number];

/** Options of `resume(id, options)`; `by` and `via` name who resumes it, in its audit trail. */
export interface ResumeOptions extends ChangeOptions {
  /**
   * The occurrences due while it was paused (after the pause, and after its last run): `skip` none,
   * `once` one run enqueued at resume standing for all of them (its record's `coalesced` says how
   * many), `all` each one, with its own fire time. Runs are recorded with kind `catch-up`.
   * @defaultValue `'skip'`
   */
  policy?: ResumePolicy;
  /**
   * Under `all`, the most occurrences it may enqueue: more missed than this is refused (nothing
   * changes; resume with `once`, or a larger bound).
   * @defaultValue the schedule's own `maxCatchUp` (`1000` unless it sets one): one catch-up bound
   * per schedule, for its late occurrences and its resume alike
   */
  maxCatchUp?: number;
}
