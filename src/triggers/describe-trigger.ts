import { describeCron, describeSeconds } from '../cron/describe.js';
import { formatWallTime } from '../cron/format-wall-time.js';
import type { TriggerJSON } from './trigger.js';

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
  }
}
