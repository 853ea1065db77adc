import { ScheduleOptionsError } from '../../errors/index.js';
import type { Trigger } from '../../triggers/trigger.js';
import type { ScheduledJob, ScheduleOptions } from '../contract/index.js';
import type { HandlerDecorator, ScheduleDecorator } from './scheduler-manager-types.js';

type AnyFn = (...args: never[]) => unknown;

/**
 * What `every()` and `cron()` return: a function to call with a handler, or a method decorator of
 * either flavour. TC39 decorators register the method bound to each instance when it is created;
 * legacy ones (`experimentalDecorators`) have no per-instance hook, so the method is registered when
 * its class is defined and runs with `this` = the class (static) or its prototype.
 */
export function scheduleDecorator(
  schedule: (fn: AnyFn, trigger: Trigger, options: ScheduleOptions) => ScheduledJob,
  trigger: Trigger,
  options: ScheduleOptions,
): ScheduleDecorator {
  return ((fn: AnyFn, context?: ClassMethodDecoratorContext | string | symbol, descriptor?: unknown) => {
    if (typeof context === 'string' || typeof context === 'symbol') {
      const method = (descriptor as PropertyDescriptor | undefined)?.value as unknown;
      if (typeof method !== 'function') {
        throw new ScheduleOptionsError(undefined, String(context), 'a schedule decorator goes on a method');
      }
      schedule((method as AnyFn).bind(fn), trigger, { ...options, name: options.name ?? String(context) });
      return undefined;
    }
    if (context && typeof context === 'object' && context.kind === 'method') {
      const name = options.name ?? String(context.name);
      context.addInitializer(function (this: unknown) {
        schedule((fn as (...a: unknown[]) => unknown).bind(this) as AnyFn, trigger, { ...options, name });
      });
      return undefined;
    }
    return schedule(fn, trigger, options);
  }) as ScheduleDecorator;
}

/**
 * What `handle(name?)` returns: a function to call with a handler, or a method decorator of either
 * flavour (as `scheduleDecorator`), registering the handler under `name` (default: the method's name).
 * No schedule is defined: runtime schedules of that job name run through it.
 */
export function handlerDecorator(
  register: (name: string, fn: AnyFn) => void,
  name: string | undefined,
): HandlerDecorator {
  return ((fn: AnyFn, context?: ClassMethodDecoratorContext | string | symbol, descriptor?: unknown) => {
    if (typeof context === 'string' || typeof context === 'symbol') {
      const method = (descriptor as PropertyDescriptor | undefined)?.value as unknown;
      if (typeof method !== 'function') {
        throw new ScheduleOptionsError(undefined, String(context), 'a handler decorator goes on a method');
      }
      register(name ?? String(context), (method as AnyFn).bind(fn));
      return undefined;
    }
    if (context && typeof context === 'object' && context.kind === 'method') {
      const as = name ?? String(context.name);
      context.addInitializer(function (this: unknown) {
        register(as, (fn as (...a: unknown[]) => unknown).bind(this) as AnyFn);
      });
      return undefined;
    }
    const as = name ?? (fn as { name?: string }).name;
    if (!as) throw new ScheduleOptionsError(undefined, 'name', 'required: the function is anonymous');
    register(as, fn);
    return fn;
  }) as HandlerDecorator;
}
