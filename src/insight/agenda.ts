import { DateTime } from 'luxon';
import type { SchedulerManager } from '../scheduler/index.js';
import { internalsOf } from '../scheduler/index.js';
import { redisTime, ScheduleStatus, spreadOffsetMs } from '../store/index.js';
import { CalendarTrigger } from '../triggers/calendar-trigger.js';
import { CronTrigger } from '../triggers/cron-trigger.js';
import { ExceptTrigger } from '../triggers/except-trigger.js';
import type { Trigger } from '../triggers/trigger.js';
import { jitterMsOf, plannedInstantOf } from '../triggers/without-jitter.js';
import { calendarsOf, nextOccurrence } from './calendar-insight.js';
import { parseDurationMs } from './duration.js';
import { plannedTrigger, storedTrigger } from './stored-trigger.js';

/** One fire instant of one schedule. */
export interface AgendaEntry {
  /** Epoch ms (UTC). */
  at: number;
  scheduleId: string;
  name: string;
  queue: string;
  /** The schedule's zone (its cron trigger's; `UTC` otherwise). */
  zone: string;
  /** The instant as wall time in that zone, with its offset (ISO 8601). */
  local: string;
  /**
   * A jittered schedule's: `at` is the planned instant, and the run comes at a random time up to this
   * much later (ms). Planned instants, not a random sample, so that the agenda is the same at every reading.
   */
  jitterMs?: number;
  /**
   * A spread schedule's: `at` is the occurrence's nominal time (its identity), and it fires at
   * `firesAt`, `at` plus the schedule's offset inside its `spread` window.
   */
  firesAt?: number;
}

/** Every fire instant in a window, merged in time order. */
export interface Agenda {
  from: number;
  to: number;
  entries: AgendaEntry[];
  /** True when `limit` cut the list (the count per queue still covers every instant walked). */
  truncated: boolean;
  /** Instants per queue in the window (up to the per-schedule bound). */
  perQueue: Record<string, number>;
  /**
   * With `slices`: instants per queue in each of that many equal slices of the window, counted over
   * every instant walked (not only the `limit` entries), so a timeline covers the whole window.
   */
  perQueueSlices?: Record<string, number[]>;
  /**
   * The minute (its start, epoch ms) with the most instants, counted over every instant walked in the
   * window (not only the `limit` entries); the earliest such minute on a tie. Absent when none fire.
   */
  busiestMinute?: { at: number; count: number };
  /** Schedules whose walk stopped at `perScheduleLimit` instants before the window's end. */
  capped: string[];
  /** Active schedules whose instants cannot be computed here (a custom trigger this process does not define). */
  unknown: string[];
}

/** Options of `agenda()`. */
export interface AgendaOptions {
  /** Start of the window (epoch ms). Default: now (Redis time). */
  from?: number;
  /** Length of the window (ms). Default: 24 h. */
  nextMs?: number;
  /** Only schedules of this queue. */
  queue?: string;
  /** Only schedules whose labels match this selector (`tenant=acme`; see `parseSelector`). */
  selector?: string;
  /** At most this many entries are returned. Default: 10,000. */
  limit?: number;
  /** At most this many instants are walked per schedule. Default: 100,000. */
  perScheduleLimit?: number;
  /** Count the instants per queue in this many equal slices of the window (`perQueueSlices`). */
  slices?: number;
}

/** What `agendaOf` needs of one schedule. */
export interface AgendaSchedule {
  id: string;
  name: string;
  queue: string;
  trigger: Trigger;
  /** Its next due time (as stored), or null when not active. */
  next: number | null;
  endAt?: number | undefined;
  /** Runs left before `maxRuns`, if bounded. */
  runsLeft?: number | undefined;
  /** Its jitter (ms), when `trigger` is its trigger without it (its planned instants). */
  jitterMs?: number | undefined;
  /** Its spread offset (ms), when it has a `spread`. */
  spreadOffsetMs?: number | undefined;
}

/**
 * The agenda of a set of schedules (pure): from each one's next due time, its trigger walked to the
 * end of the window, merged in time order.
 */
export function agendaOf(
  schedules: readonly AgendaSchedule[],
  from: number,
  to: number,
  limit = 10_000,
  perScheduleLimit = 100_000,
  slices = 0,
): Omit<Agenda, 'unknown'> {
  let all: AgendaEntry[] = [];
  const perQueue: Record<string, number> = {};
  const perQueueSlices: Record<string, number[]> = {};
  const sliceMs = slices > 0 ? (to - from) / slices : 0;
  const capped: string[] = [];
  const perMinute = new Map<number, number>();
  /** Once `limit` entries are known, none later than the `limit`-th can make the list. */
  let cutoff = Number.POSITIVE_INFINITY;
  for (const s of schedules) {
    // an ExceptTrigger (or a CalendarTrigger) is shown in its zone (its cron trigger's, or the one it was given)
    const t0 = s.trigger;
    const zoned = t0 instanceof CronTrigger || t0 instanceof ExceptTrigger || t0 instanceof CalendarTrigger;
    const zone = zoned ? t0.timezone : 'UTC';
    const fires = s.trigger instanceof ExceptTrigger ? s.trigger.trigger : s.trigger;
    const jitterMs = s.jitterMs ?? (fires instanceof CronTrigger ? fires.jitterMs : jitterOf(fires));
    let t = s.next;
    let n = 0;
    const cap = Math.min(perScheduleLimit, s.runsLeft ?? Number.POSITIVE_INFINITY);
    try {
      while (t !== null && t <= to && n < cap && (s.endAt === undefined || t <= s.endAt)) {
        if (t >= from) {
          n++;
          perQueue[s.queue] = (perQueue[s.queue] ?? 0) + 1;
          const minute = t - (((t % 60_000) + 60_000) % 60_000);
          perMinute.set(minute, (perMinute.get(minute) ?? 0) + 1);
          if (slices > 0) {
            const row = (perQueueSlices[s.queue] ??= new Array<number>(slices).fill(0));
            const i = Math.min(slices - 1, Math.floor((t - from) / sliceMs));
            row[i] = (row[i] ?? 0) + 1;
          }
          if (t <= cutoff) all.push(entry(s, t, zone, jitterMs));
          if (all.length >= limit * 4) {
            all.sort((a, b) => a.at - b.at);
            all = all.slice(0, limit);
            cutoff = all[limit - 1]?.at ?? cutoff;
          }
        }
        const next: number | null = s.trigger.nextFire(t, Math.max(t, from));
        if (next !== null && next <= t) break;
        t = next;
      }
      if (n >= perScheduleLimit && t !== null && t <= to) capped.push(s.id);
    } catch {
      // a trigger that throws: its schedule errors when fired; the agenda shows what came before
    }
  }
  all.sort((a, b) => a.at - b.at || a.scheduleId.localeCompare(b.scheduleId));
  const total = Object.values(perQueue).reduce((a, b) => a + b, 0);
  const out: Omit<Agenda, 'unknown'> = {
    from,
    to,
    entries: all.slice(0, limit),
    truncated: total > limit,
    perQueue,
    capped,
  };
  const busiest = busiestOf(perMinute);
  if (busiest) out.busiestMinute = busiest;
  if (slices > 0) out.perQueueSlices = perQueueSlices;
  return out;
}

/**
 * `bullbeat agenda`: every fire instant of every active schedule (of `queue`, if given) in the next
 * `nextMs`, merged in time order, in UTC and in each schedule's zone.
 */
export async function agenda(manager: SchedulerManager, options: AgendaOptions = {}): Promise<Agenda> {
  const now = await redisTime(internalsOf(manager).redis);
  const from = options.from ?? now;
  const to = from + (options.nextMs ?? 24 * 3_600_000);
  const listed = {
    status: ScheduleStatus.ACTIVE,
    ...(options.selector !== undefined && { selector: options.selector }),
  };
  const jobs = (await manager.list(listed)).filter(
    (j) => options.queue === undefined || j.queue === options.queue,
  );
  const unknown: string[] = [];
  const schedules: AgendaSchedule[] = [];
  const calendars = await calendarsOf(manager, jobs);
  for (const job of jobs) {
    const trigger = storedTrigger(job, calendars);
    if (!trigger) {
      unknown.push(job.id);
      continue;
    }
    const maxRuns = job.def.maxRuns;
    // a jittered one is walked by its planned instants, from the one its due time was drawn for
    const jitterMs = job.def.trigger.type === 'custom' ? 0 : jitterMsOf(job.def.trigger);
    const planned = jitterMs > 0 ? plannedTrigger(job, calendars) : undefined;
    const next = nextOccurrence(trigger, job.wakeUpTime, job.lastRunTime ?? null, now);
    schedules.push({
      id: job.id,
      name: job.name,
      queue: job.queue,
      trigger: planned ?? trigger,
      next: planned && next !== null ? plannedInstantOf(planned, next, jitterMs) : next,
      ...(planned && { jitterMs }),
      ...(job.def.spreadMs !== undefined && { spreadOffsetMs: spreadOffsetMs(job.id, job.def.spreadMs) }),
      endAt: job.def.endAt,
      runsLeft: maxRuns === undefined ? undefined : Math.max(0, maxRuns - job.fired),
    });
  }
  const walked = agendaOf(schedules, from, to, options.limit, options.perScheduleLimit, options.slices);
  return { ...walked, unknown };
}

/** Parse a window length by the duration rule (`parseDurationMs`: `24h`, `90m`, `2d`; a bare number is seconds); undefined unless positive. */
export function parseWindow(text: string): number | undefined {
  const ms = parseDurationMs(text);
  return ms !== undefined && ms > 0 ? ms : undefined;
}

function entry(s: AgendaSchedule, at: number, zone: string, jitterMs: number): AgendaEntry {
  return {
    at,
    scheduleId: s.id,
    name: s.name,
    queue: s.queue,
    zone,
    local:
      DateTime.fromMillis(at, { zone }).toISO({ suppressMilliseconds: true }) ?? new Date(at).toISOString(),
    ...(jitterMs > 0 && { jitterMs }),
    ...(s.spreadOffsetMs !== undefined && { firesAt: at + s.spreadOffsetMs }),
  };
}

/** The minute with the most instants, the earliest on a tie. */
function busiestOf(perMinute: ReadonlyMap<number, number>): { at: number; count: number } | undefined {
  let best: { at: number; count: number } | undefined;
  for (const [at, count] of perMinute) {
    if (!best || count > best.count || (count === best.count && at < best.at)) best = { at, count };
  }
  return best;
}

function jitterOf(trigger: Trigger): number {
  const j = (trigger as { jitterMs?: unknown }).jitterMs;
  return typeof j === 'number' ? j : 0;
}
