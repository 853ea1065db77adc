import { describeCron, describeSeconds } from '../cron/describe.js';
import { formatWallTime } from '../cron/format-wall-time.js';
import type { ExceptTriggerJSON, TriggerJSON } from './trigger.js';
import { triggerTimezone } from './trigger-timezone.js';

/**
 * A built-in trigger (its JSON form) in plain words: interval, cron, date and compound.
 * `timezone` is only used to show a date trigger's instant (cron triggers carry their own).
 */
export function describeTrigger(trigger: TriggerJSON, options: { timezone?: string } = {}): string {
  switch (trigger.type) {
    case 'interval': {
      const jitter = trigger.jitter ? ` (plus up to ${describeSeconds(trigger.jitter)} of jitter)` : '';
      return `Every ${trigger.seconds === 1 ? 'second' : describeSeconds(trigger.seconds)}${jitter}`;
    }
    case 'cron': {
      const jitter = trigger.jitter ? ` (plus up to ${describeSeconds(trigger.jitter)} of jitter)` : '';
      return (
        describeCron(trigger.expression, {
          timezone: trigger.timezone ?? 'UTC',
          ...(trigger.dayMatch !== undefined && { dayMatch: trigger.dayMatch }),
        }) + jitter
      );
    }
    case 'date':
      return `Once, at ${`${formatWallTime(trigger.at, options.timezone)} ${options.timezone ?? 'UTC'}`}`;
    case 'compound': {
      const children = trigger.triggers.map((t) => describeTrigger(t, options));
      return trigger.logic === 'or'
        ? `Whichever comes first of: ${children.join('; ')}`
        : `When all are due: ${children.join('; ')}`;
    }
    case 'except':
      return `${describeTrigger(trigger.trigger, options)}; ${describeExcept(trigger, options)}`;
    case 'calendar': {
      const roll = trigger.onExcluded
        ? `, excluded days moved to the ${trigger.onExcluded} business day`
        : '';
      return `${describeTrigger(trigger.trigger, options)}; on business days of calendar "${trigger.calendar}"${roll}`;
    }
  }
}

/** `except (Europe/Paris): 2026-12-25; 2026-12-24 to 2026-12-26; minutes matching "* * * * 0,6" (...)`. */
function describeExcept(trigger: ExceptTriggerJSON, options: { timezone?: string }): string {
  const zone = trigger.timezone ?? triggerTimezone(trigger.trigger) ?? 'UTC';
  if (trigger.except.length === 0) return 'no exclusions';
  const parts = trigger.except.map((e) => {
    if (typeof e !== 'string')
      return `when ${lowerFirst(describeTrigger(e, { timezone: zone, ...options }))}`;
    const range = e.split('..');
    if (range.length === 2) return `${range[0]!.trim()} to ${range[1]!.trim()}`;
    if (/^\d{4}-\d{2}-\d{2}$/.test(e)) return e;
    let words: string;
    try {
      words = describeCron(e, { timezone: zone }).replace(/ \([^()]*\)$/, '');
    } catch {
      words = 'unreadable';
    }
    return `${e.trim().split(/\s+/).length === 6 ? 'seconds' : 'minutes'} matching "${e}" (${lowerFirst(words)})`;
  });
  return `except (${zone}): ${parts.join('; ')}`;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
