/**
 * A schedule's status as the dashboard shows it (an orphaned code schedule shows as paused; one that
 * cannot be planned or enqueued, or whose stored row cannot be read, as errored).
 */
import type {
  PauseNote,
  RunCounter,
  RunRecord,
  ScheduleDefinition,
  ScheduleErrorInfo,
  ScheduleStatus,
} from '../src/store/index.js';

/** A schedule's status as the pages show it: the public `ScheduleStatus`. */
export type { ScheduleStatus };

/** Why a row gets a warning badge. */
export type ScheduleBadge =
  | 'late' // active and its next due time is more than misfireGraceMs in the past
  | 'failing' // its last few finished occurrences all failed or were missed, or no success for several intervals
  | 'no-worker'; // as failing, but nothing ever started a run and none failed: no worker consumes its queue

/** One schedule as the list and detail views (and the JSON API) show it. */
export interface ScheduleView {
  id: string;
  name: string;
  queue: string;
  source: 'code' | 'runtime';
  status: ScheduleStatus;
  /** True for a code schedule that no running deployment defines (shown as paused). */
  orphaned: boolean;
  /** The trigger in plain words, time zone included. */
  description: string;
  /** The trigger's time zone (cron), or null. */
  timezone: string | null;
  /**
   * The next fire times (epoch ms), up to 5; empty when paused or exhausted. For a jittered trigger,
   * its planned instants: each runs at a random time up to `jitterMs` later.
   */
  nextFireTimes: number[];
  /** The trigger's jitter (ms): each of `nextFireTimes` is the start of a window this long. 0 without jitter. */
  jitterMs: number;
  /**
   * When the scheduler next wakes for it (its stored due time), present only when that is not the
   * first of `nextFireTimes`: a schedule on a calendar whose roll (or excluded day) moves the run; the
   * library's `ScheduledJob.wakeUpTime`, `schedule:show`'s `wakes up`.
   */
  wakeUpTime?: number;
  lastFireAt: number | null;
  /** How many occurrences were enqueued so far (the store's `fired`). */
  fired: number;
  createdAt: number | null;
  counts: Record<RunCounter, number>;
  /** The newest finished or skipped occurrence's outcome, or null. */
  lastOutcome: RunRecord['outcome'] | null;
  lastError: string | null;
  badges: ScheduleBadge[];
  /** Why it is errored (status `errored`), else null. */
  error: ScheduleErrorInfo | null;
  /** While paused: why, who paused it and when (`pause(id, { note })`); null otherwise. */
  pauseNote: PauseNote | null;
  /** The stored definition (a stand-in, trigger `{ type: 'custom', kind: 'unreadable' }`, when it cannot be read). */
  definition: ScheduleDefinition;
}
