import 'reflect-metadata';
import type { CronScheduleOptions, EveryOptions, ScheduleOptions, Trigger } from '../src/index.js';

/** The metadata key under which a method's schedules are stored (on the method function). */
export const BULLBEAT_SCHEDULES = 'bullbeat:schedules';

/** One schedule declared on a provider method by `@Cron()`, `@Every()` or `@Schedule()`. */
export type MethodSchedule =
  | { kind: 'cron'; expression: string; options: CronScheduleOptions }
  | { kind: 'every'; seconds: number; options: EveryOptions }
  | { kind: 'trigger'; trigger: Trigger; options: ScheduleOptions };

/**
 * A method decorator for NestJS (TypeScript's `experimentalDecorators`, which Nest requires). It only
 * records the schedule on the method; `BullbeatModule` finds it when the application boots.
 */
export type BullbeatMethodDecorator = (
  target: object,
  propertyKey: string | symbol,
  descriptor: PropertyDescriptor,
) => void;

function declare(schedule: MethodSchedule): BullbeatMethodDecorator {
  return (_target, propertyKey, descriptor) => {
    const method: unknown = descriptor?.value;
    if (typeof method !== 'function') {
      throw new TypeError(
        `bullbeat/nest: @${decoratorName(schedule)}() goes on a method; "${String(propertyKey)}" is not one`,
      );
    }
    const existing = (Reflect.getMetadata(BULLBEAT_SCHEDULES, method) as MethodSchedule[] | undefined) ?? [];
    Reflect.defineMetadata(BULLBEAT_SCHEDULES, [...existing, schedule], method);
  };
}

function decoratorName(schedule: MethodSchedule): string {
  return schedule.kind === 'cron' ? 'Cron' : schedule.kind === 'every' ? 'Every' : 'Schedule';
}

/**
 * Run the method on a cron expression (`CronTrigger`): `@Cron('0 9 * * 1-5', { timezone: 'Europe/Paris' })`.
 * The options are `SchedulerManager.cron()`'s. Default `name` (and `id`): `ClassName.methodName`.
 */
export function Cron(expression: string, options: CronScheduleOptions = {}): BullbeatMethodDecorator {
  return declare({ kind: 'cron', expression, options: { ...options } });
}

/**
 * Run the method every `seconds` (`IntervalTrigger`, fractions allowed): `@Every(30, { jitter: 5 })`.
 * The options are `SchedulerManager.every()`'s. Default `name` (and `id`): `ClassName.methodName`.
 */
export function Every(seconds: number, options: EveryOptions = {}): BullbeatMethodDecorator {
  return declare({ kind: 'every', seconds, options: { ...options } });
}

/**
 * Run the method on any trigger (a `DateTrigger`, a `CompoundTrigger`, your own):
 * `@Schedule(new DateTrigger(new Date('2027-01-04T09:00:00Z')))`. The options are
 * `SchedulerManager.schedule()`'s. Default `name` (and `id`): `ClassName.methodName`.
 */
export function Schedule(trigger: Trigger, options: ScheduleOptions = {}): BullbeatMethodDecorator {
  return declare({ kind: 'trigger', trigger, options: { ...options } });
}
