import type { TriggerJSON } from './trigger.js';

/**
 * The time zone a built-in trigger (its JSON) is read in: a cron trigger's zone (`UTC` when it names
 * none), the first one found among a compound's children, an `except` wrapper's own or its trigger's;
 * null for intervals and dates, which have none.
 */
export function triggerTimezone(trigger: TriggerJSON | { type: string }): string | null {
  const t = trigger as TriggerJSON;
  switch (t.type) {
    case 'cron':
      return t.timezone ?? 'UTC';
    case 'compound':
      for (const child of t.triggers) {
        const tz = triggerTimezone(child);
        if (tz) return tz;
      }
      return null;
    case 'except':
    case 'calendar':
      return t.timezone ?? triggerTimezone(t.trigger);
    default:
      return null;
  }
}
