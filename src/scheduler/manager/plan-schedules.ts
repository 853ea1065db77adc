import type { ScheduleStore, StoredCalendar, StoredSchedule } from '../../store/index.js';
import {
  definitionChanges,
  encodeDefinition,
  type ScheduleDefinition,
  timingFingerprint,
} from '../../store/index.js';
import { BusinessCalendar, type CalendarSpec } from '../../triggers/business-calendar.js';
import { calendarChange } from '../../triggers/calendar-effect.js';
import { type CalendarSource, CalendarTrigger } from '../../triggers/calendar-trigger.js';
import type { Trigger, TriggerJSON } from '../../triggers/trigger.js';
import { triggerFromJSON } from '../../triggers/trigger-from-json.js';
import { withoutJitter } from '../../triggers/without-jitter.js';
import type {
  PlannedAdd,
  PlannedCalendar,
  PlannedChange,
  PlannedEffect,
  PlannedRemoval,
  PlannedRename,
  ScheduledJob,
  SchedulePlan,
} from '../contract/index.js';
import { firstFire } from './first-fire.js';

/** How many fire times a plan shows before and after a change. */
const SHOWN_FIRES = 3;

const STATUS: Record<string, string> = {
  a: 'active',
  p: 'paused',
  o: 'orphaned',
  e: 'errored',
  c: 'completed',
};

/** JSON with object keys sorted, so that two values equal field by field compare equal. */
function stableJSON(v: unknown): string {
  return JSON.stringify(v, (_k, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}

/**
 * The trigger a plan walks for a definition (jitter aside), on a named calendar with the versions of
 * `calendars`; a custom one only if the code gives it.
 */
function walkable(
  def: ScheduleDefinition,
  code: Trigger | undefined,
  calendars: CalendarSource,
): Trigger | undefined {
  if (def.trigger.type === 'custom') return code;
  try {
    return triggerFromJSON(withoutJitter(def.trigger as TriggerJSON), { calendars });
  } catch {
    return undefined;
  }
}

/** Up to `SHOWN_FIRES` fire times from `first` on, not after `endAt`; fewer when the trigger ends or throws. */
function fireTimes(trigger: Trigger | undefined, first: number | null, endAt: number | undefined): number[] {
  const out: number[] = [];
  let at = first;
  try {
    while (trigger && at !== null && out.length < SHOWN_FIRES && (endAt === undefined || at <= endAt)) {
      out.push(at);
      const next = trigger.nextFire(at, at);
      at = next !== null && next > at ? next : null;
    }
  } catch {
    // a trigger that throws shows what it gave before
  }
  return out;
}

/** The first fire time of `def` from `now` (`firstFire`), or null when it has none or throws. */
function firstFrom(def: ScheduleDefinition, trigger: Trigger | undefined, now: number): number | null {
  if (!trigger) return null;
  try {
    return firstFire(def, trigger, now);
  } catch {
    return null;
  }
}

const shape = (def: ScheduleDefinition) => ({
  id: def.id,
  name: def.name,
  queue: def.queue,
  trigger: def.trigger,
});

/**
 * A stored schedule's next fire times, from its stored next due time (none unless active); on a named
 * calendar from the run that due time stands for under `calendars` (a roll applied, as `get()` says).
 */
function storedFires(
  row: StoredSchedule,
  code: Trigger | undefined,
  calendars: CalendarSource,
  now: number,
): number[] {
  if (row.state.status !== 'a') return [];
  const trigger = walkable(row.def, code, calendars);
  const first =
    trigger instanceof CalendarTrigger && row.next !== null
      ? trigger.appliedRun(row.next, row.state.lastFireAt, now)
      : row.next;
  return fireTimes(trigger, first, row.def.endAt);
}

/** The calendars as stored (`before`) and as the code would leave them (`after`: its definitions laid over). */
interface PlanCalendars {
  before: CalendarSource;
  after: CalendarSource;
}

/** What `start()`'s upsert of `job` would do to its stored row, or undefined when nothing. */
function changeOf(
  job: ScheduledJob,
  row: StoredSchedule,
  now: number,
  calendars: PlanCalendars,
): PlannedChange | undefined {
  const def = job.def;
  const changes = definitionChanges(row.def, def).filter((c) => stableJSON(c.before) !== stableJSON(c.after));
  const status = row.state.status;
  const effects: PlannedEffect[] = [];
  const retimed = timingFingerprint(def) !== row.state.fingerprint;
  if (retimed && changes.length > 0) effects.push('re-timed');
  if (status === 'o') effects.push('restored');
  if (status === 'e') effects.push('error cleared');
  if (row.state.source !== 'code') effects.push('source to code');
  const rewritten = encodeDefinition(row.def) !== encodeDefinition(def) && changes.length > 0;
  if (!rewritten && effects.length === 0) return undefined;
  // a paused schedule and a completed one-shot stay so; an unchanged timing keeps its next due time
  const stays = status === 'p' || (status === 'c' && def.trigger.type === 'date');
  const trigger = walkable(def, job.trigger, calendars.after);
  let after: number[] = [];
  if (!stays && !retimed && status === 'a') after = storedFires(row, job.trigger, calendars.after, now);
  else if (!stays) after = fireTimes(trigger, firstFrom(def, trigger, now), def.endAt);
  return {
    ...shape(def),
    changes,
    effects,
    status: STATUS[status] ?? status,
    nextBefore: storedFires(row, job.trigger, calendars.before, now),
    nextAfter: after,
  };
}

/**
 * What `start()` would do to the stored schedules of this deployment with these code schedules:
 * the ones it creates, changes (field by field, fire times before and after), orphans, and the pairs
 * that look like a renamed id. Reads only.
 */
export async function planSchedules(
  store: ScheduleStore,
  prefix: string,
  code: readonly ScheduledJob[],
  /** The calendars stored, and those the code defines as it loads (collected, not written). */
  defined: {
    stored: readonly StoredCalendar[];
    collected: readonly { name: string; spec: CalendarSpec }[];
  } = {
    stored: [],
    collected: [],
  },
): Promise<SchedulePlan> {
  const now = await store.time();
  const states = await store.states();
  const rows = new Map((await store.getMany([...states.keys()])).map((r) => [r.def.id, r]));
  const { sources, planned } = planCalendars(defined, [...rows.values()], now);
  const added: PlannedAdd[] = [];
  const changed: PlannedChange[] = [];
  let unchanged = 0;
  const mine = new Set<string>();
  for (const job of code) {
    mine.add(job.id);
    const row = rows.get(job.id);
    if (!row) {
      const trigger = walkable(job.def, job.trigger, sources.after);
      added.push({
        ...shape(job.def),
        nextAfter: fireTimes(trigger, firstFrom(job.def, trigger, now), job.def.endAt),
      });
      continue;
    }
    const change = changeOf(job, row, now, sources);
    if (change) changed.push(change);
    else unchanged++;
  }
  const removed: PlannedRemoval[] = [];
  for (const row of rows.values()) {
    if (row.state.source !== 'code' || mine.has(row.def.id)) continue;
    removed.push({
      ...shape(row.def),
      status: STATUS[row.state.status] ?? row.state.status,
      effect: row.state.status === 'a' ? 'orphaned' : 'none',
      nextBefore: storedFires(row, undefined, sources.before, now),
    });
  }
  removed.sort((a, b) => (a.id < b.id ? -1 : 1));
  const renamed = renames(added, removed);
  return {
    prefix,
    at: now,
    added,
    changed,
    removed,
    renamed,
    unchanged,
    calendars: planned,
    hasChanges:
      added.length +
        changed.length +
        removed.filter((r) => r.effect === 'orphaned').length +
        planned.filter((c) => c.changed).length >
      0,
  };
}

/** A calendar source over calendars by name. */
function sourceOf(byName: ReadonlyMap<string, BusinessCalendar>): CalendarSource {
  return { calendar: (name) => byName.get(name) };
}

/**
 * The calendars before and after the code's definitions, and what each definition would do to the
 * stored active schedules on it (their next 3 fire times under the stored version and the new one).
 */
function planCalendars(
  defined: { stored: readonly StoredCalendar[]; collected: readonly { name: string; spec: CalendarSpec }[] },
  rows: readonly StoredSchedule[],
  now: number,
): { sources: PlanCalendars; planned: PlannedCalendar[] } {
  const before = new Map<string, BusinessCalendar>();
  for (const c of defined.stored) {
    try {
      before.set(c.name, new BusinessCalendar(c.name, c.version, c.spec));
    } catch {
      // a stored calendar that no longer reads: its schedules show no fire times
    }
  }
  const after = new Map(before);
  const planned: PlannedCalendar[] = [];
  for (const { name, spec } of defined.collected) {
    const { after: next, ...change } = calendarChange({
      name,
      spec,
      stored: defined.stored.find((c) => c.name === name),
      before: before.get(name),
      from: now,
      count: SHOWN_FIRES,
      schedules: rows
        .filter((r) => r.state.status === 'a')
        .map((r) => ({ id: r.def.id, trigger: r.def.trigger, lastFire: r.state.lastFireAt })),
    });
    after.set(name, next);
    planned.push({ name, ...change });
  }
  return { sources: { before: sourceOf(before), after: sourceOf(after) }, planned };
}

/** Pairs of a removed and an added schedule with the same handler, queue and trigger (each used once). */
function renames(added: PlannedAdd[], removed: PlannedRemoval[]): PlannedRename[] {
  const out: PlannedRename[] = [];
  const taken = new Set<string>();
  for (const a of added) {
    const key = stableJSON([a.name, a.queue, a.trigger]);
    const r = removed.find((x) => !taken.has(x.id) && stableJSON([x.name, x.queue, x.trigger]) === key);
    if (!r) continue;
    taken.add(r.id);
    a.renameOf = r.id;
    out.push({ from: r.id, to: a.id, name: a.name, queue: a.queue });
  }
  return out;
}
