/**
 * A schedule's lifecycle state (Sillo's `JobStatus`): active ⇄ paused, active → completed, any →
 * cancelled; active → errored when it cannot be planned or enqueued (its reason in `job.error`),
 * back to active when it is re-defined or resumed.
 */
export const JobStatus = {
  ACTIVE: 'active',
  PAUSED: 'paused',
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
  ERRORED: 'errored',
} as const;

export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];
