/**
 * A schedule's lifecycle status: active ⇄ paused, active → completed, any → cancelled; active →
 * errored when it cannot be planned or enqueued (its reason in `job.error`), back to active when it is
 * re-defined or resumed.
 */
export const ScheduleStatus = {
  ACTIVE: 'active',
  PAUSED: 'paused',
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
  ERRORED: 'errored',
} as const;

/** One of `ScheduleStatus`'s values: `'active' | 'paused' | 'completed' | 'cancelled' | 'errored'`. */
export type ScheduleStatus = (typeof ScheduleStatus)[keyof typeof ScheduleStatus];

/**
 * Sillo's name for {@link ScheduleStatus}, kept for code ported from Sillo (docs/sillo.md).
 * @deprecated Use `ScheduleStatus`: the same values.
 */
export const JobStatus = ScheduleStatus;

/**
 * Sillo's name for {@link ScheduleStatus}.
 * @deprecated Use `ScheduleStatus`.
 */
export type JobStatus = ScheduleStatus;
