import { ScheduleOptionsError } from '../../errors/index.js';
import type { ScheduleDefinition } from '../../store/index.js';
import { CronTrigger } from '../../triggers/cron-trigger.js';
import { IntervalTrigger } from '../../triggers/interval-trigger.js';
import type { Trigger } from '../../triggers/trigger.js';
import {
  applyPatch,
  type CronScheduleOptions,
  checkNotify,
  type EveryOptions,
  resolveScheduleOptions,
  ScheduledJob,
  type ScheduledJobHost,
  type ScheduleOptions,
  type SchedulePatch,
  type ScheduleTarget,
} from '../contract/index.js';

type AnyFn = (...args: never[]) => unknown;

/** What turning options into a `ScheduledJob` needs from the manager. */
export interface DefineContext {
  host: ScheduledJobHost;
  defaultQueue: string;
  triggerBudgetMs: number;
  /** The notifiers configured in this process, when any: `expect.notify` is checked against them at once. */
  notifiers?: ReadonlySet<string>;
}

/**
 * The handle of `schedule(fnOrTarget, trigger, options)`: its options checked and resolved once
 * (`resolveScheduleOptions`). A function defined before `start()` is a code schedule; anything else
 * a runtime one.
 */
export function definedJob(
  ctx: DefineContext,
  fnOrTarget: AnyFn | ScheduleTarget,
  trigger: Trigger,
  options: ScheduleOptions,
  started: boolean,
): ScheduledJob {
  const isFn = typeof fnOrTarget === 'function';
  const target = isFn ? undefined : (fnOrTarget as ScheduleTarget);
  if (!isFn && (typeof target !== 'object' || target === null || typeof target.name !== 'string')) {
    throw new ScheduleOptionsError(
      options.id ?? options.name,
      'target',
      'must be a function or { queue?, name }',
    );
  }
  const resolved = resolveScheduleOptions({
    options,
    fallbackName: isFn ? (fnOrTarget as AnyFn).name || undefined : target?.name,
    defaultQueue: ctx.defaultQueue,
    targetQueue: target?.queue,
    trigger,
    source: isFn && !started ? 'code' : 'runtime',
    triggerBudgetMs: ctx.triggerBudgetMs,
  });
  if (ctx.notifiers) checkNotify(resolved.def.id, resolved.def.expect, ctx.notifiers);
  warnDeprecatedOptions(ctx.host, resolved.def, options);
  const fn = isFn ? (fnOrTarget as AnyFn) : undefined;
  return new ScheduledJob(ctx.host, resolved.def, resolved.trigger, fn, resolved.middleware);
}

/**
 * The handle of a stored runtime schedule changed by `patch`, checked by the same schema as a new
 * one (nothing is written when a field is bad). `readable`: its stored trigger, when it decodes;
 * `mine`: the handle this process holds, whose function and middleware it keeps.
 */
export function patchedJob(
  ctx: DefineContext,
  def: ScheduleDefinition,
  patch: SchedulePatch,
  readable: Trigger | undefined,
  mine: ScheduledJob | undefined,
): ScheduledJob {
  const { options, trigger } = applyPatch(def, patch, readable);
  const resolved = resolveScheduleOptions({
    options,
    fallbackName: def.name,
    defaultQueue: ctx.defaultQueue,
    trigger,
    source: 'runtime',
    triggerBudgetMs: ctx.triggerBudgetMs,
  });
  warnDeprecatedOptions(ctx.host, resolved.def, patch);
  return new ScheduledJob(ctx.host, resolved.def, trigger, mine?.fn, mine?.middleware ?? resolved.middleware);
}

/** The schedules of each manager told already that they use `coalesce` (one warning per schedule). */
const toldOfCoalesce = new WeakMap<object, Set<string>>();

/**
 * A deprecation warning, through the manager's logger, for a schedule defined with `coalesce`: once per
 * schedule and manager, however often its code defines it again. The option was read already (it
 * resolved into `overlap`, stored as the definition's rule); the warning says what it stands for.
 */
function warnDeprecatedOptions(
  host: ScheduledJobHost,
  def: ScheduleDefinition,
  given: { coalesce?: unknown } | undefined,
): void {
  if (given?.coalesce === undefined || given.coalesce === null) return;
  let told = toldOfCoalesce.get(host);
  if (!told) toldOfCoalesce.set(host, (told = new Set()));
  if (told.has(def.id)) return;
  told.add(def.id);
  host.logger.warn(
    {
      scheduleId: def.id,
      coalesce: given.coalesce,
      overlap: def.run.overlap,
      maxInstances: def.run.maxInstances,
    },
    `bullbeat: schedule "${def.id}": coalesce is deprecated; it was read as overlap "${def.run.overlap}" with maxInstances ${def.run.maxInstances}: give overlap (and maxInstances) instead (docs/schedules.md#overlap-policies)`,
  );
}

/** `every(seconds, options)`: its interval trigger, and the options left for the schedule. */
export function everyTrigger(seconds: number, options: EveryOptions): [Trigger, ScheduleOptions] {
  const { jitter, anchor, ...rest } = options;
  const trigger = new IntervalTrigger(seconds, {
    ...(jitter !== undefined && { jitter }),
    ...(anchor !== undefined && { anchor }),
  });
  return [trigger, rest];
}

/** `cron(expression, options)`: its cron trigger, and the options left for the schedule. */
export function cronTrigger(expression: string, options: CronScheduleOptions): [Trigger, ScheduleOptions] {
  const { jitter, dayMatch, dst, timezone, ...rest } = options;
  const trigger = new CronTrigger(expression, {
    ...(jitter !== undefined && { jitter }),
    ...(dayMatch !== undefined && { dayMatch }),
    ...(dst !== undefined && { dst }),
    ...(timezone !== undefined && { timezone }),
  });
  return [trigger, rest];
}
