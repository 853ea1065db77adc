import type { ScheduledJob } from '../scheduler/index.js';
import type { CalendarSource } from '../triggers/calendar-trigger.js';
import type { Trigger } from '../triggers/trigger.js';
import { triggerFromJSON } from '../triggers/trigger-from-json.js';
import { withoutJitter } from '../triggers/without-jitter.js';

/**
 * The trigger of a stored schedule, decoded from its definition; a custom trigger only where this
 * process's code defines it. Undefined when it cannot be had (or no longer decodes).
 */
export function storedTrigger(job: ScheduledJob, calendars?: CalendarSource): Trigger | undefined {
  const spec = job.def.trigger;
  if (spec.type === 'custom') return job.fn !== undefined ? job.trigger : undefined;
  try {
    return triggerFromJSON(spec, calendars ? { calendars } : {});
  } catch {
    return undefined;
  }
}

/**
 * A stored schedule's trigger without its jitter (its planned instants), for a built-in trigger;
 * undefined for a custom one or one that no longer decodes.
 */
export function plannedTrigger(job: ScheduledJob, calendars?: CalendarSource): Trigger | undefined {
  const spec = job.def.trigger;
  if (spec.type === 'custom') return undefined;
  try {
    return triggerFromJSON(withoutJitter(spec), calendars ? { calendars } : {});
  } catch {
    return undefined;
  }
}
