/** Options of the per-process metrics (`SchedulerMetrics`, `WorkerMetrics`). */
export interface ProcessMetricsOptions {
  /**
   * Schedule ids that get a `schedule` label of their own on fires, lateness, runs and durations;
   * every other schedule is counted under `schedule="other"`. Default: none, and no `schedule`
   * label at all (10,000 schedules would make 10,000 series). Keep the set small and fixed.
   */
  scheduleLabels?: readonly string[];
}

/** Lateness buckets (seconds), shared by the scheduler's histograms. */
export const LATENESS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Run duration buckets (seconds). */
export const DURATION_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];

/** Bounded label values: anything else is counted as `other`. */
export const bounded = (allowed: ReadonlySet<string>, v: string): string => (allowed.has(v) ? v : 'other');

/** The `schedule` label, when opted in: `{ schedule: id | 'other' }`, else `{}`. */
export function scheduleLabel(
  opted: ReadonlySet<string> | undefined,
  id: string | undefined,
): { schedule?: string } {
  if (!opted) return {};
  return { schedule: id !== undefined && opted.has(id) ? id : 'other' };
}
