import type { Command } from 'commander';
import { ConfigError, TriggerBudgetError, TriggerError } from '../../errors/index.js';
import type { MisfirePolicy, ScheduleOptions } from '../../scheduler/index.js';
import type { ScheduleDefinition } from '../../store/index.js';
import { firstProblem, scheduleOptionsSchema } from '../../store/index.js';
import type { Trigger } from '../../triggers/index.js';
import {
  DateTrigger,
  DEFAULT_TRIGGER_BUDGET_MS,
  describeTrigger,
  ExceptTrigger,
  triggerFromJSON,
  withTimeBudget,
} from '../../triggers/index.js';
import { cliChange } from '../cli-actor.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { durationFlagSeconds } from '../duration-flag.js';
import { ExitCode } from '../exit-codes.js';
import { unservedNote } from '../fleet-notes.js';
import { shortInstant } from '../format-table.js';
import { instantFlag } from '../instant-flag.js';
import { numericFlag } from '../numeric-flag.js';
import { describeChanges } from '../schedule-changes.js';
import { shown } from '../terminal-text.js';
import { triggerWords, withManager } from './admin.js';

export interface AddOptions {
  name: string;
  id?: string;
  cron?: string;
  every?: string;
  at?: string;
  tz?: string;
  jitter?: string;
  queue?: string;
  data?: string;
  attempts?: string;
  maxInstances?: string;
  misfire?: MisfirePolicy;
  timeoutMs?: string;
  overlap?: string;
  pauseOnFailure?: string;
  except?: string[];
  calendar?: string;
  onExcluded?: string;
  replace?: boolean;
  allowPast?: boolean;
  /** Fire once at creation too, then follow the trigger. */
  immediately?: boolean;
  /** `--expect startedWithin=2m,notify=ops`, repeatable. */
  expect?: string[];
  json?: boolean;
}

/** The flag that gave each schedule option or trigger field, to name it in errors. */
const FLAG: Record<string, string> = {
  id: '--id',
  name: '--name',
  queue: '--queue',
  data: '--data',
  attempts: '--attempts',
  maxInstances: '--max-instances',
  timeoutMs: '--timeout-ms',
  misfire: '--misfire',
  overlap: '--overlap',
  pauseOnFailure: '--pause-on-failure',
  immediately: '--immediately',
  seconds: '--every',
  jitter: '--jitter',
  expression: '--cron',
  timezone: '--tz',
  at: '--at',
  except: '--except',
  calendar: '--calendar',
  onExcluded: '--on-excluded',
  expect: '--expect',
};
export const flagOf = (field: string): string => FLAG[field.split(/[.[]/)[0] ?? field] ?? field;

/** A built-in trigger from its JSON, checked by the triggers' own schema; errors name the flag. */
function checkedTrigger(json: Record<string, unknown>): Trigger {
  try {
    return triggerFromJSON(json);
  } catch (err) {
    if (err instanceof TriggerError) throw new ConfigError(flagOf(err.field), err.reason, { cause: err });
    throw err;
  }
}

/** `3 days`, `5 hours`, `12 minutes`, `40 seconds`: how long ago, in the largest whole unit. */
function howLong(ms: number): string {
  for (const [unit, size] of [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ] as const) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${unit}${n === 1 ? '' : 's'}`;
  }
  const s = Math.max(1, Math.round(ms / 1000));
  return `${s} second${s === 1 ? '' : 's'}`;
}

/**
 * The trigger the flags describe: exactly one of --cron, --every, --at. An --at in the past would
 * run at once as a late occurrence: that needs --allow-past, so a typo in a year is not a surprise.
 */
export function triggerFromFlags(o: AddOptions, now: number): Trigger {
  const given = (['cron', 'every', 'at'] as const).filter((k) => o[k] !== undefined);
  if (given.length !== 1) {
    throw new ConfigError(
      '--cron/--every/--at',
      `give exactly one (got ${given.length === 0 ? 'none' : given.map((g) => `--${g}`).join(' and ')})`,
    );
  }
  const jitter = durationFlagSeconds('--jitter', o.jitter);
  if (o.tz !== undefined && o.every !== undefined) {
    throw new ConfigError(
      '--tz',
      'an --every interval is a duration and has no time zone (for wall-clock times, use --cron with --tz)',
    );
  }
  if (o.tz !== undefined && o.cron === undefined) throw new ConfigError('--tz', 'only applies to --cron');
  if (o.allowPast && o.at === undefined) throw new ConfigError('--allow-past', 'only applies to --at');
  if (o.cron !== undefined) {
    return checkedTrigger({
      type: 'cron',
      expression: o.cron,
      ...(o.tz && { timezone: o.tz }),
      ...(jitter !== undefined && { jitter }),
    });
  }
  if (o.every !== undefined) {
    return checkedTrigger({
      type: 'interval',
      seconds: durationFlagSeconds('--every', o.every),
      ...(jitter !== undefined && { jitter }),
    });
  }
  if (jitter !== undefined) throw new ConfigError('--jitter', 'does not apply to --at');
  const at = instantFlag('--at', o.at as string);
  const trigger = new DateTrigger(at);
  if (at < now && !o.allowPast) {
    throw new ConfigError(
      '--at',
      `${new Date(at).toISOString()} is in the past (by ${howLong(now - at)}): pass --allow-past to run it once, now`,
    );
  }
  return trigger;
}

/** The options the flags give, beside the trigger. */
function scheduleOptionsFrom(o: AddOptions): ScheduleOptions {
  let data: unknown;
  if (o.data !== undefined) {
    try {
      data = JSON.parse(o.data);
    } catch (cause) {
      throw new ConfigError('--data', `expected JSON: ${(cause as Error).message}`, { cause });
    }
  }
  const given: Record<string, unknown> = {
    id: o.id,
    data,
    attempts: numericFlag('--attempts', o.attempts),
    maxInstances: numericFlag('--max-instances', o.maxInstances),
    timeoutMs: numericFlag('--timeout-ms', o.timeoutMs),
    misfire: o.misfire,
    overlap: o.overlap,
    pauseOnFailure: numericFlag('--pause-on-failure', o.pauseOnFailure),
    immediately: o.immediately,
    except: o.except,
    calendar: o.calendar,
    onExcluded: o.onExcluded,
    expect: expectFromFlags(o.expect),
  };
  for (const k of Object.keys(given)) if (given[k] === undefined) delete given[k];
  // checked here, before connecting, by the rules the library and the API use
  const checked = scheduleOptionsSchema.safeParse({ ...given, name: o.name, queue: o.queue });
  if (!checked.success) {
    const { field, reason } = firstProblem(checked.error);
    const expectField = /^expect\.(\w+)/.exec(field)?.[1];
    throw new ConfigError(expectField ? `--expect ${expectField}` : flagOf(field), reason);
  }
  return given as ScheduleOptions;
}

const EXPECT_FIELDS = ['startedWithin', 'succeededBy', 'maxDuration', 'failuresInARow', 'notify'];

/**
 * `--expect startedWithin=2m,failuresInARow=3,notify=ops` (the flag repeatable, `notify=` too) as the
 * `expect` option; its values are checked with the rest, by the library's rules. Undefined when not given.
 */
export function expectFromFlags(flags: readonly string[] | undefined): Record<string, unknown> | undefined {
  if (flags === undefined || flags.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const part of flags.flatMap((f) => f.split(','))) {
    const item = part.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const key = eq < 0 ? item : item.slice(0, eq).trim();
    const value = eq < 0 ? '' : item.slice(eq + 1).trim();
    if (!EXPECT_FIELDS.includes(key)) {
      throw new ConfigError(
        '--expect',
        `unknown expectation "${key}" in "${item}": expected one of ${EXPECT_FIELDS.join(', ')} (field=value)`,
      );
    }
    if (eq < 0 || value === '') throw new ConfigError(`--expect ${key}`, `needs a value: ${key}=...`);
    if (key === 'notify') out.notify = [...((out.notify as string[] | undefined) ?? []), value];
    else if (key === 'failuresInARow') out.failuresInARow = /^-?\d+$/.test(value) ? Number(value) : value;
    else if (key in out)
      throw new ConfigError(`--expect ${key}`, `given twice ("${out[key]}" and "${value}")`);
    else out[key] = value;
  }
  return out;
}

/**
 * Each --except read as the library will, before connecting; errors name the flag and the entry. The
 * first fire time is computed under the trigger time budget, as a scheduler will.
 */
function checkExceptFlags(trigger: Trigger, except: string[] | undefined, id: string): void {
  if (except === undefined) return;
  try {
    const wrapped = new ExceptTrigger(trigger, except);
    withTimeBudget(DEFAULT_TRIGGER_BUDGET_MS, () => wrapped.nextFire(null, Date.now()));
  } catch (err) {
    if (err instanceof TriggerBudgetError) {
      throw new ConfigError(
        '--except',
        `the next fire time of "${id}" cannot be computed within the trigger time budget (${err.budgetMs} ms of CPU, triggerBudgetMs)`,
        { cause: err },
      );
    }
    if (err instanceof TriggerError && err.trigger === 'ExceptTrigger') {
      const index = /^except\[(\d+)\]/.exec(err.field)?.[1];
      throw new ConfigError(
        index === undefined ? '--except' : `--except ${JSON.stringify(except[Number(index)])}`,
        err.reason,
        { cause: err },
      );
    }
  }
}

export const defWords = (def: ScheduleDefinition): string => {
  if (def.trigger.type === 'custom') return `custom trigger (${def.trigger.kind})`;
  try {
    return describeTrigger(def.trigger);
  } catch {
    return def.trigger.type;
  }
};

/** `misfire skip, timeout 5000 ms`: the options that differ from the defaults, or ''. */
export function extras(def: ScheduleDefinition): string {
  const parts = [
    ...(def.misfire !== 'once' ? [`misfire ${def.misfire}`] : []),
    ...(def.run.timeoutMs !== undefined ? [`timeout ${def.run.timeoutMs} ms`] : []),
    ...(def.run.slot.mode !== 'skip' || def.run.slot.cap !== 1
      ? [`overlap ${def.run.overlap}${def.run.slot.mode === 'skip' ? ` (${def.run.slot.cap} at once)` : ''}`]
      : []),
    ...(def.run.pauseOnFailure !== undefined ? [`pause after ${def.run.pauseOnFailure} failures`] : []),
  ];
  return parts.length === 0 ? '' : `; ${parts.join(', ')}`;
}

/**
 * `schedule:add --name N (--cron E | --every S | --at T) ...`: a runtime schedule targeting a queue.
 * An id already in Redis is replaced only with --replace, and the change is printed; a schedule
 * defined in code never is (its jobs module owns it).
 */
export function addCommand(io: CliIO) {
  return async (options: AddOptions, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const trigger = triggerFromFlags(options, io.now());
    const scheduleOptions = scheduleOptionsFrom(options);
    const id = options.id ?? options.name;
    checkExceptFlags(trigger, options.except, id);
    const { job, before } = await withManager(
      ctx,
      async (m) => {
        const existing = await m.get(id);
        // the id is --id, or --name when no --id was given: blame the flag the user typed
        const idFlag = options.id !== undefined ? '--id' : '--name';
        const idWords = options.id !== undefined ? '' : ' (the id defaults to --name)';
        if (existing?.def.source === 'code') {
          throw new ConfigError(
            idFlag,
            `schedule "${id}" is defined in code (source: code): it is never replaced from outside; change it in the jobs module`,
          );
        }
        if (existing && !options.replace) {
          throw new ConfigError(
            idFlag,
            `a schedule "${id}"${idWords} already exists (${defWords(existing.def)}, queue "${existing.queue}"): pass --replace to overwrite it${options.id === undefined ? ', or --id to add another' : ''}`,
          );
        }
        const created = m.schedule(
          { name: options.name, ...(options.queue !== undefined && { queue: options.queue }) },
          trigger,
          scheduleOptions,
          cliChange(),
        );
        await created.saved;
        const unserved = await unservedNote(m, created.queue, created.name);
        if (unserved) ctx.note(unserved);
        return { job: (await m.get(created.id)) ?? created, before: existing?.def };
      },
      { creates: true },
    );
    const json = job.toJSON();
    if (options.json) {
      io.stdout(`${JSON.stringify(json, null, 2)}\n`);
      return ExitCode.ok;
    }
    io.stdout(
      `${before ? 'replaced' : 'added'} ${shown(json.id)}: ${triggerWords(json)}; jobs "${shown(json.name)}" on queue "${shown(json.queue)}"${extras(job.def)}; next run ${shortInstant(json.nextRunTime)}\n`,
    );
    if (before) io.stdout(`changed: ${shown(describeChanges(before, job.def, defWords))}\n`);
    return ExitCode.ok;
  };
}
