import type { Command } from 'commander';
import { ConfigError } from '../../errors/config-error.js';
import type { MisfirePolicy, ScheduleOptions } from '../../scheduler/schedule-options.js';
import type { ScheduleDefinition } from '../../store/schedule-definition.js';
import { CronTrigger } from '../../triggers/cron-trigger.js';
import { DateTrigger } from '../../triggers/date-trigger.js';
import { describeTrigger } from '../../triggers/index.js';
import { IntervalTrigger } from '../../triggers/interval-trigger.js';
import type { Trigger } from '../../triggers/trigger.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { shortInstant } from '../format-table.js';
import { describeChanges } from '../schedule-changes.js';
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
  replace?: boolean;
  allowPast?: boolean;
  json?: boolean;
}

function number(flag: string, text: string | undefined, integer: boolean, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min) {
    throw new ConfigError(
      flag,
      `expected ${integer ? 'a whole number' : 'a number'} >= ${min} (got "${text}")`,
    );
  }
  return n;
}

function instant(text: string): number {
  if (/^\d+$/.test(text.trim())) return Number(text);
  const t = Date.parse(text);
  if (Number.isNaN(t))
    throw new ConfigError('--at', `expected an ISO 8601 instant or epoch ms (got "${text}")`);
  return t;
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
  const jitter = number('--jitter', o.jitter, false, 0);
  if (o.tz !== undefined && o.every !== undefined) {
    throw new ConfigError(
      '--tz',
      'an --every interval is a duration and has no time zone (for wall-clock times, use --cron with --tz)',
    );
  }
  if (o.tz !== undefined && o.cron === undefined) throw new ConfigError('--tz', 'only applies to --cron');
  if (o.allowPast && o.at === undefined) throw new ConfigError('--allow-past', 'only applies to --at');
  if (o.cron !== undefined) {
    return new CronTrigger(o.cron, {
      ...(o.tz && { timezone: o.tz }),
      ...(jitter !== undefined && { jitter }),
    });
  }
  if (o.every !== undefined) {
    const seconds = number('--every', o.every, false, 0.001) as number;
    return new IntervalTrigger(seconds, { ...(jitter !== undefined && { jitter }) });
  }
  if (jitter !== undefined) throw new ConfigError('--jitter', 'does not apply to --at');
  const at = instant(o.at as string);
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
  const attempts = number('--attempts', o.attempts, true, 1);
  const maxInstances = number('--max-instances', o.maxInstances, true, 0);
  const timeoutMs = number('--timeout-ms', o.timeoutMs, true, 1);
  return {
    ...(o.id !== undefined && { id: o.id }),
    ...(data !== undefined && { data }),
    ...(attempts !== undefined && { attempts }),
    ...(maxInstances !== undefined && { maxInstances }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(o.misfire !== undefined && { misfire: o.misfire }),
  };
}

const defWords = (def: ScheduleDefinition): string => {
  if (def.trigger.type === 'custom') return `custom trigger (${def.trigger.kind})`;
  try {
    return describeTrigger(def.trigger);
  } catch {
    return def.trigger.type;
  }
};

/** `misfire skip, timeout 5000 ms`: the options that differ from the defaults, or ''. */
function extras(def: ScheduleDefinition): string {
  const parts = [
    ...(def.misfire !== 'once' ? [`misfire ${def.misfire}`] : []),
    ...(def.run.timeoutMs !== undefined ? [`timeout ${def.run.timeoutMs} ms`] : []),
  ];
  return parts.length === 0 ? '' : `; ${parts.join(', ')}`;
}

/**
 * `schedule:add --name N (--cron E | --every S | --at T) ...`: a runtime schedule targeting a queue.
 * An id already in Redis is replaced only with --replace, and the change is printed.
 */
export function addCommand(io: CliIO) {
  return async (options: AddOptions, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const trigger = triggerFromFlags(options, io.now());
    const scheduleOptions = scheduleOptionsFrom(options);
    const id = options.id ?? options.name;
    const { job, before } = await withManager(ctx, async (m) => {
      const existing = await m.get(id);
      if (existing && !options.replace) {
        throw new ConfigError(
          '--id',
          `a schedule "${id}" already exists (${defWords(existing.def)}, queue "${existing.queue}"): pass --replace to overwrite it`,
        );
      }
      const created = m.schedule(
        { name: options.name, ...(options.queue !== undefined && { queue: options.queue }) },
        trigger,
        scheduleOptions,
      );
      await created.saved;
      return { job: (await m.get(created.id)) ?? created, before: existing?.def };
    });
    const json = job.toJSON();
    if (options.json) {
      io.stdout(`${JSON.stringify(json, null, 2)}\n`);
      return ExitCode.ok;
    }
    io.stdout(
      `${before ? 'replaced' : 'added'} ${json.id}: ${triggerWords(json)}; jobs "${json.name}" on queue "${json.queue}"${extras(job.def)}; next run ${shortInstant(json.nextRunTime)}\n`,
    );
    if (before) io.stdout(`changed: ${describeChanges(before, job.def, defWords)}\n`);
    return ExitCode.ok;
  };
}
