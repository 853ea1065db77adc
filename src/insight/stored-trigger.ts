import type { ScheduledJob } from '../scheduler/index.js';
import type { Trigger } from '../triggers/trigger.js';
import { triggerFromJSON } from '../triggers/trigger-from-json.js';

/**
 * The trigger of a stored schedule, decoded from its definition; a custom trigger only where this
 * process's code defines it. Undefined when it cannot be had (or no longer decodes).
 */
export function storedTrigger(job: ScheduledJob): Trigger | undefined {
  const spec = job.def.trigger;
  if (spec.type === 'custom') return job.fn !== undefined ? job.trigger : undefined;
  try {
    return triggerFromJSON(spec);
  } catch {
    return undefined;
  }
}
