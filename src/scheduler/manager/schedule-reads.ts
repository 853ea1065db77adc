import type { Redis } from 'ioredis';
import { ScheduleOptionsError } from '../../errors/index.js';
import type {
  Keys,
  PauseNote,
  ScheduleDefinition,
  ScheduleState,
  ScheduleStore,
  StoredSchedule,
} from '../../store/index.js';
import {
  countersOf,
  countsFrom,
  namePage,
  namePageAt,
  type RunCounter,
  type RunHistory,
  repairNames,
  ScheduleIndex,
  ScheduleStatus,
  scanSchedules,
  scheduleCount,
  statusOf,
  storedQueueNames,
  withTriggerChecked,
} from '../../store/index.js';
import { CalendarTrigger } from '../../triggers/calendar-trigger.js';
import type { Trigger } from '../../triggers/trigger.js';
import type { ScheduledJob } from '../contract/index.js';
import type { ListQuery, SchedulerStats } from './scheduler-manager-types.js';

/** What reading schedules into `ScheduledJob` handles needs from the manager. */
export interface ReadContext {
  store: ScheduleStore;
  redis: Redis;
  keys: Keys;
  local: ReadonlyMap<string, ScheduledJob>;
  triggerOf(def: ScheduleDefinition): Trigger | undefined;
  /** A handle for a schedule this process does not define. */
  handle(def: ScheduleDefinition, trigger: Trigger): ScheduledJob;
  /** The pause notes of schedules, in order. */
  pauseNotes?(ids: readonly string[]): Promise<(PauseNote | null)[]>;
  /** Read the named calendars' current versions, which `triggerOf`'s calendar triggers then apply. */
  refreshCalendars?(names: readonly string[]): Promise<void>;
}

/** What `listPage` answers. */
export interface ListPage {
  total: number;
  /** `total` is a lower bound: a search counted past its page up to a budget (`ListQuery.search`). */
  totalAtLeast?: true;
  items: ScheduledJob[];
  cursor?: string;
}

const STATUSES: readonly string[] = Object.values(ScheduleStatus);

/** A list query's fields checked: a bad one is refused naming it. */
function checkListQuery(query: ListQuery): void {
  const bad = (field: string, text: string) => new ScheduleOptionsError(undefined, field, text);
  if (query.status !== undefined && !STATUSES.includes(query.status)) {
    throw bad('status', `must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(query.status)}`);
  }
  for (const field of ['queue', 'search', 'selector'] as const) {
    if (query[field] !== undefined && typeof query[field] !== 'string') {
      throw bad(field, `must be a string, got ${JSON.stringify(query[field])}`);
    }
  }
  if (query.offset !== undefined && (!Number.isInteger(query.offset) || query.offset < 0)) {
    throw bad('offset', `must be a whole number >= 0, got ${JSON.stringify(query.offset)}`);
  }
  if (query.limit !== undefined && (!Number.isInteger(query.limit) || query.limit < 0)) {
    throw bad('limit', `must be a whole number >= 0, got ${JSON.stringify(query.limit)}`);
  }
}

/** A page of schedules sorted by name then id, with the total that matched (or, with `cursor`, in store order). */
export async function listPage(ctx: ReadContext, query: ListQuery): Promise<ListPage> {
  checkListQuery(query);
  if (query.order !== undefined && query.order !== 'store' && query.order !== 'name') {
    throw new ScheduleOptionsError(
      undefined,
      'order',
      `must be "store" or "name", got ${JSON.stringify(query.order)}`,
    );
  }
  if (query.cursor !== undefined) return scanPage(ctx, query, query.cursor);
  const unfiltered =
    query.selector === undefined &&
    query.status === undefined &&
    query.queue === undefined &&
    (query.search?.trim() ?? '') === '';
  if (unfiltered && query.limit !== undefined) {
    // a page of the whole list by name: the queue indexes merged, reading up to the page's end per partition
    const offset = query.offset ?? 0;
    const [page, total] = await Promise.all([
      namePageAt(ctx.redis, ctx.keys, offset, query.limit),
      scheduleCount(ctx.redis, ctx.keys),
    ]);
    return { total, items: await materialize(ctx, await rowsByName(ctx, page.ids, page.names)) };
  }
  // filtered: by the list indexes (status, queue, search) or the label index (selector), read now
  const index = new ScheduleIndex(ctx.redis, ctx.keys);
  const { total, ids, totalAtLeast } = await index.page(query);
  const rows: StoredSchedule[] = [];
  for (let i = 0; i < ids.length; i += 1000) rows.push(...(await ctx.store.getMany(ids.slice(i, i + 1000))));
  return { total, ...(totalAtLeast && { totalAtLeast }), items: await materialize(ctx, rows) };
}

/** How many schedules a cursor page reads when the query gives no `limit`. */
const SCAN_PAGE = 100;

/** A page of the walk over every schedule (`ListQuery.cursor`): about `limit` read, then filtered. */
async function scanPage(ctx: ReadContext, query: ListQuery, cursor: string): Promise<ListPage> {
  if (typeof cursor !== 'string') throw new ScheduleOptionsError(undefined, 'cursor', 'must be a string');
  if (query.selector !== undefined) {
    throw new ScheduleOptionsError(
      undefined,
      'cursor',
      "not with selector: a selector's list is paged by offset",
    );
  }
  if (query.offset !== undefined && query.offset !== 0) {
    throw new ScheduleOptionsError(
      undefined,
      'cursor',
      'not with offset: the cursor says where the page starts',
    );
  }
  const limit = query.limit ?? SCAN_PAGE;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ScheduleOptionsError(
      undefined,
      'limit',
      `must be a whole number >= 1 with a cursor, got ${limit}`,
    );
  }
  const walk = async (): Promise<{ rows: StoredSchedule[]; cursor: string | undefined }> => {
    if (query.order === 'name') {
      const page = await namePage(ctx.redis, ctx.keys, cursor, limit);
      return { rows: await rowsByName(ctx, page.ids, page.names), cursor: page.cursor };
    }
    const page = await scanSchedules(ctx.redis, ctx.keys, cursor, limit);
    return { rows: await ctx.store.getMany(page.ids), cursor: page.cursor };
  };
  const [step, total] = await Promise.all([walk(), scheduleCount(ctx.redis, ctx.keys)]);
  const stored = step.rows;
  const q = query.search?.trim().toLowerCase() ?? '';
  const rows = stored.filter((row) => {
    const { id, name, queue } = row.def;
    return (
      (query.queue === undefined || queue === query.queue) &&
      (q === '' || `${id}\n${name}\n${queue}`.toLowerCase().includes(q)) &&
      (query.status === undefined || statusOf(withTriggerChecked(row).state) === query.status)
    );
  });
  const items = await materialize(ctx, rows);
  return { total, items, ...(step.cursor !== undefined && { cursor: step.cursor }) };
}

/**
 * The stored rows of a page by name, in its order (one removed meanwhile left out); a row stored under
 * another name than its index entry (renamed by a writer that kept no index), or one no longer stored
 * (removed by such a writer), has its entry repaired.
 */
async function rowsByName(ctx: ReadContext, ids: string[], names: string[]): Promise<StoredSchedule[]> {
  const rows: StoredSchedule[] = [];
  for (let i = 0; i < ids.length; i += 1000) rows.push(...(await ctx.store.getMany(ids.slice(i, i + 1000))));
  const found = new Map(rows.map((r) => [r.def.id, r.def.name]));
  const stale = ids
    .map((id, i) => ({ id, indexedName: names[i]! }))
    .filter((s) => found.get(s.id) !== s.indexedName);
  await repairNames(ctx.redis, ctx.keys, stale);
  return rows;
}

/** Handles for stored rows; a row whose trigger cannot be read is shown errored, never thrown. */
export async function materialize(ctx: ReadContext, stored: StoredSchedule[]): Promise<ScheduledJob[]> {
  const rows = stored.map(withTriggerChecked);
  const jobs = rows.map((row) => {
    const mine = ctx.local.get(row.def.id);
    if (mine && row.error?.at !== null) {
      mine.def = row.def;
      return mine;
    }
    const trigger = (row.error === null && ctx.triggerOf(row.def)) || { nextFire: () => null };
    return ctx.handle(row.def, trigger);
  });
  await fillCounters(ctx, jobs, rows);
  return jobs;
}

/** State, next time, error and run counters of handles, from their stored rows. */
export async function fillCounters(
  ctx: ReadContext,
  jobs: ScheduledJob[],
  rows: StoredSchedule[],
): Promise<void> {
  if (jobs.length === 0) return;
  const now = await ctx.store.time();
  const counters = await countersOf(
    ctx.redis,
    ctx.keys,
    jobs.map((j) => j.id),
    now,
  );
  const notes = (await ctx.pauseNotes?.(jobs.map((j) => j.id))) ?? [];
  jobs.forEach((job, i) => {
    const row = rows[i]!;
    job.applyState(row.state, row.next, row.error);
    Object.assign(job, counters[i]);
    const paused = row.state.status === 'p' || row.state.status === 'o';
    job.pauseNote = paused ? (notes[i] ?? null) : null;
  });
  await applyCalendars(ctx, jobs, now);
}

/**
 * On a named calendar, a handle's next run is the occurrence with the calendar's current version
 * applied (a roll by `onExcluded` included); its stored due time, the fire loop's wake-up, stays
 * `wakeUpTime`.
 */
async function applyCalendars(ctx: ReadContext, jobs: readonly ScheduledJob[], now: number): Promise<void> {
  const onCalendar = jobs.filter((j) => j.def.trigger.type === 'calendar' && j.wakeUpTime !== null);
  if (onCalendar.length === 0 || !ctx.refreshCalendars) return;
  await ctx.refreshCalendars(
    onCalendar.flatMap((j) => (j.def.trigger.type === 'calendar' ? [j.def.trigger.calendar] : [])),
  );
  for (const job of onCalendar) {
    let trigger: Trigger | undefined;
    try {
      trigger = ctx.triggerOf(job.def);
    } catch {
      continue; // an unreadable trigger: the handle shows its stored due time
    }
    if (trigger instanceof CalendarTrigger && job.wakeUpTime !== null) {
      job.nextRunTime = trigger.appliedRun(job.wakeUpTime, job.lastRunTime, now);
    }
  }
}

/** Every queue the schedules use: `defaultQueue`, this process's and every one stored in Redis. */
export async function queueNamesOf(ctx: ReadContext, defaultQueue: string): Promise<string[]> {
  const names = new Set<string>([defaultQueue]);
  for (const job of ctx.local.values()) names.add(job.queue);
  for (const queue of await storedQueueNames(ctx.redis, ctx.keys)) names.add(queue);
  return [...names].sort();
}

/** Sillo's stats from every schedule's state and the deployment's run counters. */
export function statsOf(
  states: Iterable<ScheduleState>,
  totals: Record<RunCounter, number>,
  uptime: number,
  erroredTotal = 0,
): SchedulerStats {
  let jobsTotal = 0;
  let jobsActive = 0;
  let jobsPaused = 0;
  let jobsCompleted = 0;
  let jobsErrored = 0;
  for (const s of states) {
    jobsTotal++;
    if (s.status === 'a') jobsActive++;
    else if (s.status === 'c') jobsCompleted++;
    else if (s.status === 'e') jobsErrored++;
    else jobsPaused++;
  }
  const { runs, errors, skipped, missed, coalesced } = totals;
  return {
    jobsTotal,
    jobsActive,
    jobsPaused,
    jobsCompleted,
    jobsErrored,
    runs,
    errors,
    skipped,
    missed,
    coalesced,
    erroredTotal,
    uptime,
  };
}

/** Sillo's stats over the deployment: every schedule's state and the run counters. */
export async function deploymentStats(
  store: ScheduleStore,
  history: Pick<RunHistory, 'rawTotals'>,
  uptime: number,
): Promise<SchedulerStats> {
  const states = await store.states();
  const totals = await history.rawTotals();
  const erroredTotal = Number(totals.errored ?? 0);
  return statsOf(states.values(), countsFrom(totals), uptime, erroredTotal);
}

/** Reload a handle from Redis; one removed meanwhile is marked cancelled (false). */
export async function refreshHandle(ctx: ReadContext, job: ScheduledJob): Promise<boolean> {
  const row = await ctx.store.get(job.id);
  if (!row) {
    job.status = ScheduleStatus.CANCELLED;
    job.nextRunTime = null;
    job.wakeUpTime = null;
    return false;
  }
  job.def = row.def;
  await fillCounters(ctx, [job], [row]);
  return true;
}
