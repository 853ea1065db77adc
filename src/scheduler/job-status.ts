/** A schedule's lifecycle state (Sillo's `JobStatus`): active ⇄ paused, active → completed, any → cancelled. */
export const JobStatus = {
  ACTIVE: 'active',
  PAUSED: 'paused',
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
} as const;

export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];
