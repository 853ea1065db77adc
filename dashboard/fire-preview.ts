import { nextOccurrence } from '../src/insight/index.js';
import type { ScheduleDefinition } from '../src/store/index.js';
import type { CalendarSource, TriggerJSON } from '../src/triggers/index.js';
import {
  CalendarTrigger,
  jitterMsOf,
  plannedInstantOf,
  triggerFromJSON,
  withoutJitter,
} from '../src/triggers/index.js';

/** The next fire times a page shows, and how much later than each a jittered trigger may run it. */
export interface FirePreview {
  /** Epoch ms, up to `n`: the planned instants (before jitter) of a jittered trigger. */
  times: number[];
  /** The largest jitter of the trigger (ms); 0 when it has none. */
  jitterMs: number;
}

/**
 * The next `n` fire times after (and including) `next`, the stored due time, following the trigger.
 * A jittered trigger gives its planned instants instead (the first: the one `next` was drawn for),
 * each the start of a window `jitterMs` long, so that the preview is the same at every reading:
 * drawing the trigger's random offsets would show a new sample each time. A trigger on a named
 * calendar (given its current versions, `calendars`) starts from its next occurrence with the calendar
 * applied (`onExcluded` roll included), not from its stored wake-up.
 */
export function firePreview(
  trigger: ScheduleDefinition['trigger'],
  next: number | null,
  now: number,
  n = 5,
  calendar?: { calendars: CalendarSource; lastFire: number | null },
): FirePreview {
  if (next === null) return { times: [], jitterMs: 0 };
  if (trigger.type === 'custom') return { times: [next], jitterMs: 0 };
  const jitterMs = jitterMsOf(trigger);
  try {
    const json = trigger as TriggerJSON;
    const t = triggerFromJSON(jitterMs > 0 ? withoutJitter(json) : json, calendar ?? {});
    const first =
      t instanceof CalendarTrigger
        ? nextOccurrence(t, next, calendar?.lastFire ?? null, now)
        : jitterMs > 0
          ? plannedInstantOf(t, next, jitterMs)
          : next;
    if (first === null) return { times: [], jitterMs };
    const out = [first];
    let last = first;
    while (out.length < n) {
      const after = t.nextFire(last, Math.max(now, last));
      if (after === null || after <= last) break;
      out.push(after);
      last = after;
    }
    return { times: out, jitterMs };
  } catch {
    // an unreadable trigger shows only its stored due time
    return { times: [next], jitterMs: 0 };
  }
}
