export {
  BusinessCalendar,
  type CalendarDate,
  type CalendarSpec,
  MAX_CALENDAR_DATES,
} from './business-calendar.js';
export {
  type CalendarChange,
  type CalendarEffect,
  type CalendarEffectSchedule,
  calendarChange,
  calendarEffect,
} from './calendar-effect.js';
export {
  type CalendarExclusion,
  type CalendarSource,
  CalendarTrigger,
  type CalendarTriggerJSON,
  calendarNameProblem,
  NO_CALENDARS,
  ON_EXCLUDED,
  type OnExcluded,
} from './calendar-trigger.js';
export { CompoundLogic } from './compound-logic.js';
export { CompoundTrigger } from './compound-trigger.js';
export { CronTrigger } from './cron-trigger.js';
export type { CronTriggerOptions } from './cron-trigger-options.js';
export { DateTrigger } from './date-trigger.js';
export { describeTrigger } from './describe-trigger.js';
export type { DueAware, DueContext } from './earliest-due.js';
export { ExceptTrigger, type ExceptTriggerOptions } from './except-trigger.js';
export type { ExceptEntry, ExceptEntryJSON } from './exclusion.js';
export { instantProblem, MAX_INSTANT_MS, MAX_PERIOD_SECONDS } from './instant-bounds.js';
export { IntervalTrigger } from './interval-trigger.js';
export type { IntervalTriggerOptions } from './interval-trigger-options.js';
export { isSerializableTrigger } from './is-serializable-trigger.js';
export { checkTimeBudget, DEFAULT_TRIGGER_BUDGET_MS, withTimeBudget } from './time-budget.js';
export type {
  CompoundTriggerJSON,
  CronTriggerJSON,
  DateTriggerJSON,
  ExceptTriggerJSON,
  IntervalTriggerJSON,
  SerializableTrigger,
  Trigger,
  TriggerJSON,
} from './trigger.js';
export { triggerFromJSON } from './trigger-from-json.js';
export { triggerTimezone } from './trigger-timezone.js';
export { jitterMsOf, plannedInstantOf, withoutJitter } from './without-jitter.js';
