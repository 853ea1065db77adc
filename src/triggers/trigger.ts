import type { CalendarTriggerJSON } from './calendar-trigger.js';

/**
 * The trigger contract: given the last fire time (or `null` when it has never fired) and the current
 * time, the next fire time strictly after `lastFire` (after `now` when it has never fired), or `null`
 * once the trigger is exhausted. All instants are epoch milliseconds. A trigger is pure given its
 * arguments (jitter may be random), so tests pass `now` and never sleep.
 *
 * Any object with `nextFire` is a custom trigger; it can only be defined in code.
 */
export interface Trigger {
  nextFire(lastFire: number | null, now: number): number | null;
}

/** A built-in trigger: also serializes to JSON, so that runtime schedules survive restarts. */
export interface SerializableTrigger extends Trigger {
  toJSON(): TriggerJSON;
}

export type TriggerJSON =
  | IntervalTriggerJSON
  | CronTriggerJSON
  | DateTriggerJSON
  | CompoundTriggerJSON
  | ExceptTriggerJSON
  | CalendarTriggerJSON;

export interface IntervalTriggerJSON {
  type: 'interval';
  seconds: number;
  jitter?: number;
  anchor?: number;
}

export interface CronTriggerJSON {
  type: 'cron';
  expression: string;
  timezone?: string;
  jitter?: number;
  dayMatch?: 'or' | 'and';
  /** DST overrides; `overlap` is the earlier name of `repeated`, read as it (written as `repeated`). */
  dst?: { gap?: 'shift' | 'skip'; repeated?: 'first' | 'both'; overlap?: 'first' | 'both' };
}

export interface DateTriggerJSON {
  type: 'date';
  at: number;
}

export interface CompoundTriggerJSON {
  type: 'compound';
  logic: 'and' | 'or';
  triggers: TriggerJSON[];
}

/**
 * A trigger minus its exclusions (`ExceptTrigger`): `except` holds dates (`2026-12-25`), date ranges
 * (`2026-12-24..2026-12-26`), cron expressions and triggers; `timezone` is given only when it differs
 * from the wrapped trigger's own zone.
 */
export interface ExceptTriggerJSON {
  type: 'except';
  trigger: TriggerJSON;
  except: (string | TriggerJSON)[];
  timezone?: string;
}
