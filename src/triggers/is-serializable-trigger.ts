import { CalendarTrigger } from './calendar-trigger.js';
import { CompoundTrigger } from './compound-trigger.js';
import { CronTrigger } from './cron-trigger.js';
import { DateTrigger } from './date-trigger.js';
import { ExceptTrigger } from './except-trigger.js';
import { IntervalTrigger } from './interval-trigger.js';
import type { SerializableTrigger } from './trigger.js';

/**
 * Whether `t` is a built-in trigger whose `toJSON()` can be read back by `triggerFromJSON()`: an
 * interval, cron or date trigger, or a compound made only of those (at any depth). A custom trigger,
 * or a compound holding one, is not: it can only be defined in code.
 */
export function isSerializableTrigger(t: unknown): t is SerializableTrigger {
  if (t instanceof CompoundTrigger) return t.triggers.every(isSerializableTrigger);
  if (t instanceof ExceptTrigger) {
    return (
      isSerializableTrigger(t.trigger) &&
      t.except.every((e) => typeof e === 'string' || isSerializableTrigger(e))
    );
  }
  if (t instanceof CalendarTrigger) return isSerializableTrigger(t.trigger);
  return t instanceof IntervalTrigger || t instanceof CronTrigger || t instanceof DateTrigger;
}
