import type { Redis } from 'ioredis';
import { ScheduleNotFoundError, ScheduleOptionsError } from '../../errors/index.js';
import type { AuditActor, Keys, ListQuery, Selector } from '../../store/index.js';
import { type BulkOp, BulkTrail, pauseNoteProblem, selectIds } from '../../store/index.js';
import {
  actorOf,
  type BackfillOptions,
  type BackfillResult,
  type BackfillStop,
  type ChangeOptions,
  type PauseOptions,
  type ResumeOptions,
  resolveBackfillOptions,
  type ScheduledJob,
} from '../contract/index.js';
import { checkResumeOptions } from './resume-catch-up.js';

/** What a selection acts through: the manager's own one-schedule verbs. */
export interface SelectionHost {
  readonly redis: Redis;
  readonly keys: Keys;
  listPage(query: ListQuery): Promise<{ total: number; items: ScheduledJob[] }>;
  pause(id: string, options?: PauseOptions): Promise<boolean>;
  resume(id: string, options?: ResumeOptions): Promise<boolean>;
  remove(id: string, change?: ChangeOptions): Promise<boolean>;
  backfill(id: string, options: BackfillOptions): Promise<BackfillResult>;
}

/** The answer of a bulk change by selector (and of `scheduleMany`). */
export interface BulkResult {
  /** The id of its entry in the deployment's bulk trail (`bulkChanges()`). */
  changeId: string;
  selector?: string;
  /** How many schedules it named. */
  matched: number;
  /** How many it changed (pausing one already paused changes nothing). */
  count: number;
  /** The schedules it could not change, with why (a schedule removed meanwhile is not one of them). */
  failed: { id: string; error: string }[];
}

/** One schedule of a backfill by selector: what it enqueued (in a dry run: would enqueue). */
export interface SelectionBackfillSchedule {
  scheduleId: string;
  /** How many occurrences it enqueued (dry run: would). */
  enqueued: number;
  /** How many occurrences of the range it does not run (ran already, backfilled, scheduled, ...). */
  skipped: number;
  /** The fire times it enqueued (dry run: would enqueue), in order. */
  fireTimes: number[];
  /** Set when it stopped before enqueueing all it took: `paused` (see `BackfillResult.stopped`). */
  stopped?: BackfillStop;
}

/** The answer of `select(selector).backfill(options)`. */
export interface SelectionBackfillResult extends BulkResult {
  /** True when nothing was enqueued: the answer says what would be. */
  dryRun: boolean;
  /** The range, as epoch ms (`[from, to)`). */
  from: number;
  to: number;
  /** Occurrences enqueued over every schedule (dry run: would be). */
  enqueued: number;
  /** Each schedule it backfilled (one that failed is in `failed` instead), by id. */
  schedules: SelectionBackfillSchedule[];
}

/** How many one-schedule changes of a bulk change are in flight at once. */
export const BULK_CONCURRENCY = 64;

/** Run `each` over `ids`, `BULK_CONCURRENCY` at a time; counts the ones it answered true for. */
export async function forEachId(
  ids: readonly string[],
  each: (id: string) => Promise<boolean>,
): Promise<{ count: number; failed: { id: string; error: string }[] }> {
  let next = 0;
  let count = 0;
  const failed: { id: string; error: string }[] = [];
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        if (await each(id)) count++;
      } catch (err) {
        if (!(err instanceof ScheduleNotFoundError)) failed.push({ id, error: (err as Error).message });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, ids.length) }, worker));
  return { count, failed };
}

/**
 * The schedules a label selector picks (`manager.select('tenant=acme')`), and the changes that apply to
 * all of them at once. Each schedule is changed by the same script as a change of one (its own audit
 * entry included), and the whole change gets one entry, with its count, in the deployment's bulk trail.
 * The selector is read when a verb is called: a schedule labelled after that is not in it.
 */
export class ScheduleSelection {
  readonly #host: SelectionHost;
  readonly #selector: Selector;

  /** @internal */
  constructor(host: SelectionHost, selector: Selector) {
    this.#host = host;
    this.#selector = selector;
  }

  /** The selector, as given. */
  get selector(): string {
    return this.#selector.text;
  }

  /** The ids of the schedules it picks now, sorted. */
  ids(): Promise<string[]> {
    return selectIds(this.#host.redis, this.#host.keys, this.#selector);
  }

  /** The schedules it picks, as `list()` gives them (`query` narrows and pages them further). */
  async list(query: Omit<ListQuery, 'selector'> = {}): Promise<ScheduledJob[]> {
    return (await this.#host.listPage({ ...query, selector: this.selector })).items;
  }

  /** Pause every active one, each with the note (see `pause(id)`); `count` says how many were active. */
  async pause(options: PauseOptions = {}): Promise<BulkResult> {
    const problem = pauseNoteProblem(options.note, options.by);
    if (problem) throw new ScheduleOptionsError(undefined, problem.field, problem.reason);
    const by = actorOf(undefined, options);
    const detail = options.note === undefined ? undefined : `note: ${options.note}`;
    return this.#apply('pause', by, detail, (id) => this.#host.pause(id, options));
  }

  /** Resume every paused (or orphaned, or errored) one, under the same policy (see `resume(id)`). */
  async resume(options: ResumeOptions = {}): Promise<BulkResult> {
    const { policy, by } = checkResumeOptions('(selection)', options);
    return this.#apply('resume', by, `policy: ${policy}`, (id) => this.#host.resume(id, options));
  }

  /** Remove every one, and its history (see `remove(id)`). */
  async remove(change: ChangeOptions = {}): Promise<BulkResult> {
    const by = actorOf(undefined, change);
    return this.#apply('remove', by, undefined, (id) => this.#host.remove(id, change));
  }

  /**
   * Backfill `[from, to)` of every one (see `backfill(id)`), each by its own trigger. The options are
   * checked once, before anything is taken. `count` is the schedules that enqueued (or, in a dry run,
   * would enqueue) at least one occurrence, `enqueued` the occurrences, and `schedules` says, per
   * schedule, which fire times (a dry run: what it would do, nothing enqueued).
   */
  async backfill(options: BackfillOptions): Promise<SelectionBackfillResult> {
    const resolved = resolveBackfillOptions('(selection)', options);
    const by = actorOf(undefined, options);
    const schedules: SelectionBackfillSchedule[] = [];
    const detail = `from ${new Date(resolved.from).toISOString()} to ${new Date(resolved.to).toISOString()}${resolved.dryRun ? ' (dry run)' : ''}`;
    const result = await this.#apply('backfill', by, detail, async (id) => {
      const r = await this.#host.backfill(id, options);
      const taken = resolved.dryRun ? 'to-enqueue' : 'enqueued';
      schedules.push({
        scheduleId: id,
        enqueued: r.enqueued,
        skipped: r.skipped,
        fireTimes: r.occurrences.filter((o) => o.status === taken).map((o) => o.fireAt),
        ...(r.stopped !== undefined && { stopped: r.stopped }),
      });
      return r.enqueued > 0;
    });
    schedules.sort((a, b) => (a.scheduleId < b.scheduleId ? -1 : a.scheduleId > b.scheduleId ? 1 : 0));
    const enqueued = schedules.reduce((n, s) => n + s.enqueued, 0);
    return { ...result, dryRun: resolved.dryRun, from: resolved.from, to: resolved.to, enqueued, schedules };
  }

  async #apply(
    op: BulkOp,
    by: AuditActor,
    detail: string | undefined,
    each: (id: string) => Promise<boolean>,
  ): Promise<BulkResult> {
    const ids = await this.ids();
    const { count, failed } = await forEachId(ids, each);
    const change = {
      op,
      selector: this.selector,
      matched: ids.length,
      count,
      ...(detail !== undefined && { detail }),
    };
    const changeId = await new BulkTrail(this.#host.redis, this.#host.keys).append(change, by);
    return { changeId, selector: this.selector, matched: ids.length, count, failed };
  }
}
