/**
 * What each occurrence of a schedule must meet (`expect`), checked by the scheduler replicas from the
 * records they keep; a breach opens an incident, delivered to the named notifiers (docs/being-told.md).
 * Durations carry their unit: `'500ms'`, `'30s'`, `'2m'`, `'1h'`, `'1d'` (at most 7 days).
 */
export interface ScheduleExpectations {
  /**
   * A run must have started this long after the fire time, else a `late` incident opens (resolved
   * when a run of that occurrence or a later one starts).
   * @defaultValue none
   */
  startedWithin?: string;
  /**
   * A run must have succeeded by then, else an `overdue` incident opens: a wall time `'HH:mm'` in the
   * schedule's zone (its cron trigger's; UTC for the others), the first one at or after the fire time,
   * or a duration after the fire time (`'45m'`).
   * @defaultValue none
   */
  succeededBy?: string;
  /**
   * A run still going this long after it started opens a `stuck` incident.
   * @defaultValue none
   */
  maxDuration?: string;
  /**
   * This many final failures in a row open a `failed` incident; a success resolves it.
   * @defaultValue none
   */
  failuresInARow?: number;
  /**
   * The notifiers (named by the operator: `--notifier`, `BULLBEAT_NOTIFIERS`) its incidents go to.
   * An unknown name is refused.
   * @defaultValue the manager's `expect.notify`, else every notifier configured
   */
  notify?: string[];
}
