import type { Command } from 'commander';
import { describeTrigger } from '../../cron/describe.js';
import { ConfigError } from '../../errors/config-error.js';
import { ScheduleNotFoundError } from '../../errors/schedule-not-found-error.js';
import type { ScheduleOptions } from '../../scheduler/schedule-options.js';
import type { ScheduledJobJSON } from '../../scheduler/scheduled-job.js';
import { SchedulerManager } from '../../scheduler/scheduler-manager.js';
import { CronTrigger } from '../../triggers/cron-trigger.js';
import { DateTrigger } from '../../triggers/date-trigger.js';
import { IntervalTrigger } from '../../triggers/interval-trigger.js';
import type { Trigger } from '../../triggers/trigger.js';
import type { CliIO } from '../cli-io.js';
import { type CommandContext, commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { formatTable, shortInstant } from '../format-table.js';
import { probeRedis } from '../redis-probe.js';

/** Runs `fn` with a client-role manager on the configured Redis and prefix; closes it after. */
export async function withManager<T>(
  ctx: CommandContext,
  fn: (manager: SchedulerManager) => Promise<T>,
): Promise<T> {
  await probeRedis(ctx.config.redisUrl, ctx.config.redisTimeoutMs);
  const manager = new SchedulerManager({
    role: 'client',
    prefix: ctx.config.prefix,
    connection: ctx.config.redisUrl,
    logger: ctx.logger,
  });
  try {
    return await fn(manager);
  } finally {
    await manager.close();
  }
}

/** The trigger of a stored schedule in words. */
export function triggerWords(job: ScheduledJobJSON): string {
  if (job.spec.type === 'custom') return `custom trigger (${job.spec.kind}, defined in code)`;
  try {
    return describeTrigger(job.spec);
  } catch {
    return job.trigger;
  }
}

/** `schedule:list [--json]`. */
export function listCommand(io: CliIO) {
  return async (options: { json?: boolean }, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const jobs = await withManager(ctx, async (m) => (await m.list()).map((j) => j.toJSON()));
    if (options.json) {
      io.stdout(`${JSON.stringify(jobs, null, 2)}\n`);
      return ExitCode.ok;
    }
    if (jobs.length === 0) {
      io.stdout(`no schedules under prefix "${ctx.config.prefix}"\n`);
      return ExitCode.ok;
    }
    const rows = jobs.map((j) => [
      j.id,
      j.name === j.id ? '' : j.name,
      j.queue,
      j.orphaned ? 'orphaned' : j.status,
      shortInstant(j.nextRunTime),
      shortInstant(j.lastRunTime),
      String(j.runs),
      String(j.errors),
      triggerWords(j),
    ]);
    io.stdout(
      `${formatTable(['ID', 'NAME', 'QUEUE', 'STATUS', 'NEXT RUN', 'LAST RUN', 'RUNS', 'ERRORS', 'TRIGGER'], rows)}\n`,
    );
    io.stdout(`${jobs.length} schedule${jobs.length === 1 ? '' : 's'} under prefix "${ctx.config.prefix}"\n`);
    const errored = jobs.filter((j) => j.error !== null);
    if (errored.length > 0) {
      io.stdout(`\n${errored.length} errored (fix or remove them: they fire no more):\n`);
      for (const j of errored) io.stdout(`  ${j.id}: ${j.error?.reason}\n`);
    }
    return ExitCode.ok;
  };
}

type Action = 'schedule:pause' | 'schedule:resume' | 'schedule:trigger' | 'schedule:remove';

/** `schedule:pause|resume|trigger|remove <id>`: exit 0 when done (or already so), 4 when there is no such schedule. */
export function actionCommand(io: CliIO, action: Action) {
  return async (id: string, _options: unknown, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const line = await withManager(ctx, async (m) => {
      switch (action) {
        case 'schedule:pause':
          return (await m.pause(id))
            ? `paused ${id}`
            : `${id} was not active (${await statusOf(m, id)}): nothing to do`;
        case 'schedule:resume': {
          if (!(await m.resume(id))) return `${id} was not paused (${await statusOf(m, id)}): nothing to do`;
          const job = await m.get(id);
          return `resumed ${id}; next run ${shortInstant(job?.nextRunTime)}`;
        }
        case 'schedule:trigger': {
          const { jobId, fireAt } = await m.triggerNow(id);
          return `triggered ${id}: job ${jobId} enqueued at ${new Date(fireAt).toISOString()}`;
        }
        case 'schedule:remove':
          if (!(await m.remove(id))) throw new ScheduleNotFoundError(id);
          return `removed ${id}`;
      }
    });
    io.stdout(`${line}\n`);
    return ExitCode.ok;
  };
}

async function statusOf(m: SchedulerManager, id: string): Promise<string> {
  const job = await m.get(id);
  if (!job) throw new ScheduleNotFoundError(id);
  return job.orphaned ? 'orphaned' : job.status;
}

interface AddOptions {
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

/** The trigger the flags describe: exactly one of --cron, --every, --at. */
export function triggerFromFlags(o: AddOptions): Trigger {
  const given = (['cron', 'every', 'at'] as const).filter((k) => o[k] !== undefined);
  if (given.length !== 1) {
    throw new ConfigError(
      '--cron/--every/--at',
      `give exactly one (got ${given.length === 0 ? 'none' : given.map((g) => `--${g}`).join(' and ')})`,
    );
  }
  const jitter = number('--jitter', o.jitter, false, 0);
  if (o.tz !== undefined && o.cron === undefined) throw new ConfigError('--tz', 'only applies to --cron');
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
  return new DateTrigger(instant(o.at as string));
}

/** `schedule:add --name N (--cron E | --every S | --at T) ...`: a runtime schedule targeting a queue. */
export function addCommand(io: CliIO) {
  return async (options: AddOptions, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const trigger = triggerFromFlags(options);
    let data: unknown;
    if (options.data !== undefined) {
      try {
        data = JSON.parse(options.data);
      } catch (cause) {
        throw new ConfigError('--data', `expected JSON: ${(cause as Error).message}`, { cause });
      }
    }
    const scheduleOptions: ScheduleOptions = {
      ...(options.id !== undefined && { id: options.id }),
      ...(data !== undefined && { data }),
    };
    const attempts = number('--attempts', options.attempts, true, 1);
    if (attempts !== undefined) scheduleOptions.attempts = attempts;
    const maxInstances = number('--max-instances', options.maxInstances, true, 0);
    if (maxInstances !== undefined) scheduleOptions.maxInstances = maxInstances;
    const job = await withManager(ctx, async (m) => {
      const created = m.schedule(
        { name: options.name, ...(options.queue !== undefined && { queue: options.queue }) },
        trigger,
        scheduleOptions,
      );
      await created.saved;
      return (await m.get(created.id))?.toJSON() ?? created.toJSON();
    });
    if (options.json) {
      io.stdout(`${JSON.stringify(job, null, 2)}\n`);
    } else {
      io.stdout(
        `added ${job.id}: ${triggerWords(job)}; jobs "${job.name}" on queue "${job.queue}"; next run ${shortInstant(job.nextRunTime)}\n`,
      );
    }
    return ExitCode.ok;
  };
}
