import { DateTime } from 'luxon';
import { CronTrigger } from '../triggers/cron-trigger.js';
import { DateTrigger } from '../triggers/date-trigger.js';
import { ExceptTrigger } from '../triggers/except-trigger.js';
import { IntervalTrigger } from '../triggers/interval-trigger.js';
import type { Trigger } from '../triggers/trigger.js';

/** How many steps a walk of a trigger with no direct way back (compound, custom) takes at most. */
const MAX_WALK = 100_000;
/** How far back such a walk starts when nothing better is known. */
const WALK_BACK_MS = 7 * 24 * 3_600_000;

/** The occurrence a trigger gives at or before an instant, as `schedule:why` shows it. */
export interface ExpectedOccurrence {
  /** The planned instant (epoch ms), before any jitter. */
  planned: number;
  /** The fire time may be up to this much later (the trigger's jitter, ms). */
  jitterMs: number;
  /** The zone the trigger reads wall time in. */
  zone: string;
  /** The planned instant as wall time in that zone, with its offset (ISO 8601). */
  local: string;
  /** What the daylight-saving rule did that day, when the zone changed its offset then. */
  dst?: string;
}

/** Bounds of a schedule that limit its occurrences. */
export interface OccurrenceBounds {
  startAt?: number | undefined;
  endAt?: number | undefined;
}

/**
 * The latest occurrence the trigger gives at or before `at` (inside `bounds`), or null when there is
 * none. Cron, interval and date triggers answer directly; others are walked forward with `nextFire`
 * from `hint` (a fire time known to be an occurrence, e.g. the latest record) or from a week back.
 */
export function expectedAtOrBefore(
  trigger: Trigger,
  at: number,
  bounds: OccurrenceBounds = {},
  hint: number | null = null,
): ExpectedOccurrence | null {
  const to = bounds.endAt !== undefined ? Math.min(at, bounds.endAt) : at;
  const planned = plannedAtOrBefore(trigger, to, bounds.startAt, hint);
  if (planned === null || (bounds.startAt !== undefined && planned < bounds.startAt)) return null;
  return describeInstant(trigger, planned);
}

/** The instant in the trigger's zone, its jitter, and the DST rule of its day. */
export function describeInstant(given: Trigger, planned: number): ExpectedOccurrence {
  // an ExceptTrigger: its zone, and the wrapped trigger's jitter and DST rules
  const trigger = given instanceof ExceptTrigger ? given.trigger : given;
  const zone =
    given instanceof ExceptTrigger
      ? given.timezone
      : trigger instanceof CronTrigger
        ? trigger.timezone
        : 'UTC';
  const local = DateTime.fromMillis(planned, { zone });
  const out: ExpectedOccurrence = {
    planned,
    jitterMs: jitterOf(trigger),
    zone,
    local: local.toISO({ suppressMilliseconds: true }) ?? new Date(planned).toISOString(),
  };
  if (trigger instanceof CronTrigger) {
    const dayStart = local.startOf('day');
    const dayEnd = local.endOf('day');
    if (dayStart.offset !== dayEnd.offset) {
      const p = trigger.parser;
      const kind = dayEnd.offset > dayStart.offset ? 'spring-forward (a gap)' : 'fall-back (an hour repeats)';
      const rule =
        dayEnd.offset > dayStart.offset
          ? `gap: ${p.gap} (${p.gap === 'shift' ? 'a time inside the gap runs at the first valid instant after it' : 'times inside the gap are skipped'})`
          : `repeated: ${p.repeated} (${p.repeated === 'first' ? 'the repeated hour runs once, on its first pass' : 'the repeated hour runs on both passes'})`;
      out.dst = `${kind} day in ${zone} (${offsetText(dayStart.offset)} → ${offsetText(dayEnd.offset)}); ${p.fixedTime ? 'fixed-time' : 'interval'} expression, rule ${rule}`;
    }
  }
  return out;
}

function plannedAtOrBefore(
  trigger: Trigger,
  at: number,
  startAt: number | undefined,
  hint: number | null,
): number | null {
  if (trigger instanceof CronTrigger) return trigger.parser.prev(at + 1);
  if (trigger instanceof IntervalTrigger) {
    let offset = (at - trigger.anchor) % trigger.periodMs;
    if (offset < 0) offset += trigger.periodMs;
    return at - offset;
  }
  if (trigger instanceof DateTrigger) return trigger.at <= at ? trigger.at : null;
  // Compound or custom: walk forward from something known.
  const from = hint !== null && hint <= at ? hint - 1 : Math.max(startAt ?? -Infinity, at - WALK_BACK_MS);
  let last: number | null = null;
  try {
    let t: number | null = trigger.nextFire(null, from);
    for (let i = 0; t !== null && t <= at && i < MAX_WALK; i++) {
      last = t;
      const n: number | null = trigger.nextFire(t, t);
      if (n !== null && n <= t) break;
      t = n;
    }
  } catch {
    // a trigger that throws (the schedule is errored): the walk stops at what it reached
  }
  return last;
}

function jitterOf(trigger: Trigger): number {
  if (trigger instanceof CronTrigger || trigger instanceof IntervalTrigger) return trigger.jitterMs;
  return 0;
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}
