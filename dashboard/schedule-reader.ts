import type { Redis } from 'ioredis';
import type { Keys, RunCounter, RunRecord, ScheduleDefinition } from '../src/store/index.js';
import {
  RunHistory,
  readActivity,
  type ScheduleErrorInfo,
  type ScheduleState,
  ScheduleStore,
  statusOf,
  withTriggerChecked,
} from '../src/store/index.js';
import { type CalendarSource, describeTrigger, triggerTimezone } from '../src/triggers/index.js';
import { firePreview } from './fire-preview.js';
import type { ScheduleBadge, ScheduleView } from './schedule-view.js';

/** How many of the newest records each row reads (for its last outcome and badges). */
const RECENT = 10;
/** Finished occurrences in a row that were not successes before a schedule is flagged failing. */
const FAILING_STREAK = 3;
/** Expected intervals without a success before a schedule is flagged failing. */
const FAILING_INTERVALS = 3;
const FINISHED: ReadonlySet<RunRecord['outcome']> = new Set(['succeeded', 'failed', 'skipped', 'missed']);

/** The trigger in plain words; custom triggers (code only) say so. */
export function describeDefinitionTrigger(def: ScheduleDefinition): string {
  if (def.trigger.type === 'custom' && def.trigger.kind === 'unreadable') return 'Unreadable definition';
  if (def.trigger.type === 'custom') return `Custom trigger (${def.trigger.kind}), defined in code`;
  try {
    return describeTrigger(def.trigger);
  } catch (err) {
    return `Unreadable trigger: ${(err as Error).message}`;
  }
}

function timezoneOf(trigger: ScheduleDefinition['trigger']): string | null {
  return triggerTimezone(trigger);
}

/**
 * Reads schedules in full for display: definition, state and due time (`ScheduleStore.getMany`),
 * counters and the newest records, in two pipelined round trips whatever the page size.
 */
export class ScheduleReader {
  private readonly store: ScheduleStore;

  private readonly runs: RunHistory;

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    historyLimit: number,
    private readonly now: () => number = Date.now,
    /** The named calendars at their current versions (a schedule on one previews its runs with it applied). */
    private readonly calendars?: (names: string[]) => Promise<CalendarSource>,
  ) {
    this.store = new ScheduleStore(redis, keys, historyLimit);
    this.runs = new RunHistory(redis, keys, historyLimit);
  }

  async one(id: string): Promise<ScheduleView | null> {
    return (await this.many([id]))[0] ?? null;
  }

  async many(ids: readonly string[]): Promise<ScheduleView[]> {
    const rows = (await this.store.getMany(ids)).map(withTriggerChecked);
    if (rows.length === 0) return [];
    const activity = await readActivity(
      this.redis,
      this.keys,
      rows.map(({ def }) => def.id),
      RECENT,
    );
    const now = this.now();
    const names = rows.flatMap(({ def }) => (def.trigger.type === 'calendar' ? [def.trigger.calendar] : []));
    const calendars = names.length > 0 && this.calendars ? await this.calendars(names) : undefined;
    return rows.map(({ def, state, next, error }, i) => {
      const { counts, records, pauseNote } = activity[i]!;
      const paused = state.status === 'p' || state.status === 'o';
      return {
        ...this.view(def, state, next, error, counts, records, now, calendars),
        pauseNote: paused ? pauseNote : null,
      };
    });
  }

  private view(
    def: ScheduleDefinition,
    state: ScheduleState,
    next: number | null,
    error: ScheduleErrorInfo | null,
    counts: Record<RunCounter, number>,
    records: RunRecord[],
    now: number,
    calendars?: CalendarSource,
  ): Omit<ScheduleView, 'pauseNote'> {
    const status = error ? 'errored' : statusOf(state);
    const calendar = calendars && { calendars, lastFire: state.lastFireAt };
    const preview =
      status === 'active' ? firePreview(def.trigger, next, now, 5, calendar) : { times: [], jitterMs: 0 };
    const times = preview.times;
    const last = records.find((r) => FINISHED.has(r.outcome)) ?? records[0] ?? null;
    const badges: ScheduleBadge[] = [];
    if (status === 'active' && next !== null && now > next + def.misfireGraceMs) badges.push('late');
    if (status === 'active' && this.failing(records, state, times, now)) {
      // Nothing ever started and nothing failed: no worker consumes its queue, which is not failing.
      const noneRan = counts.errors === 0 && records.every((r) => r.startedAt === undefined && !r.error);
      badges.push(noneRan ? 'no-worker' : 'failing');
    }
    return {
      id: def.id,
      name: def.name,
      queue: def.queue,
      source: state.source,
      status,
      orphaned: state.status === 'o',
      description: describeDefinitionTrigger(def),
      timezone: timezoneOf(def.trigger),
      nextFireTimes: times,
      jitterMs: preview.jitterMs,
      // on a calendar, the run may be later than the wake-up the fire loop keeps as its due time
      ...(def.trigger.type === 'calendar' &&
        next !== null &&
        times[0] !== undefined &&
        times[0] !== next && { wakeUpTime: next }),
      lastFireAt: state.lastFireAt,
      fired: state.fired,
      createdAt: state.createdAt || null,
      counts,
      lastOutcome: last?.outcome ?? null,
      lastError: last?.error ?? null,
      badges,
      error,
      definition: def,
    };
  }

  /**
   * The last few finished occurrences all failed or were missed, or no success for several expected
   * intervals (the gap between the next two fire times) although it has fired that often.
   */
  private failing(records: RunRecord[], state: ScheduleState, times: number[], now: number): boolean {
    const finished = records.filter((r) => FINISHED.has(r.outcome) && r.outcome !== 'skipped');
    const streak = finished.slice(0, FAILING_STREAK);
    if (streak.length === FAILING_STREAK && streak.every((r) => r.outcome !== 'succeeded')) return true;
    const [a, b] = times;
    if (a === undefined || b === undefined) return false;
    const interval = b - a;
    // Backpressure: nothing took its last job for several intervals, so the occurrences since were
    // coalesced, not enqueued (`fired` stays where it was): as failing as runs that never succeed.
    const lastFire = state.lastFireAt;
    if (lastFire !== null && now - lastFire > FAILING_INTERVALS * interval) {
      const rec = records.find((r) => r.fireAt === lastFire);
      if (rec?.outcome === 'enqueued' && rec.startedAt === undefined) return true;
    }
    if (state.fired < FAILING_INTERVALS) return false;
    const lastSuccess = records.find((r) => r.outcome === 'succeeded');
    const since = lastSuccess ? (lastSuccess.finishedAt ?? lastSuccess.fireAt) : state.createdAt;
    return now - since > FAILING_INTERVALS * interval && (state.lastFireAt ?? 0) > since;
  }

  /** A schedule's history, newest first (for the detail page and the API). */
  history(id: string, limit = 100): Promise<RunRecord[]> {
    return this.runs.list(id, limit);
  }

  /** How many occurrences' records a schedule keeps (at most `historyLimit`). */
  historySize(id: string): Promise<number> {
    return this.runs.size(id);
  }
}
