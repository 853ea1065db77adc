import { Queue } from 'bullmq';
import type { Command } from 'commander';
import { Redis } from 'ioredis';
import { CronParser } from '../../cron/index.js';
import { ConfigError } from '../../errors/index.js';
import { SchedulerManager } from '../../scheduler/index.js';
import { describeTrigger } from '../../triggers/index.js';
import {
  type BullmqSchedule,
  type ImportPlanItem,
  parseLegacyKey,
  planImport,
} from '../bullmq-import-plan.js';
import { cliConnection } from '../cli-config.js';
import type { CliIO } from '../cli-io.js';
import { type CommandContext, commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { shortInstant } from '../format-table.js';
import { cliTarget, probeRedis } from '../redis-probe.js';
import { shown } from '../terminal-text.js';

interface ImportOptions {
  queue: string;
  dryRun?: boolean;
  json?: boolean;
  tz?: string;
}

type Action = 'created' | 'would-create' | 'exists' | 'not-mapped';

interface Outcome {
  item: ImportPlanItem;
  action: Action;
  nextRunTime?: number | null;
}

/**
 * The queue's job schedulers and legacy repeatable jobs, read entry by entry from its `repeat` set
 * (BullMQ 6's `getJobSchedulers()` refuses the whole list when one legacy entry is left, and deletes
 * entries it cannot read: this reads and writes nothing else).
 */
async function readBullmqSchedules(ctx: CommandContext, queueName: string): Promise<BullmqSchedule[]> {
  const queue = new Queue(queueName, { connection: { url: ctx.config.redisUrl } });
  const redis = new Redis(ctx.config.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const entries = await redis.zrange(queue.keys.repeat as string, '0', '-1', 'WITHSCORES');
    const found: BullmqSchedule[] = [];
    for (let i = 0; i < entries.length; i += 2) {
      const key = entries[i] as string;
      const next = Number(entries[i + 1]);
      let json: Awaited<ReturnType<Queue['getJobScheduler']>>;
      try {
        json = await queue.getJobScheduler(key);
      } catch {
        json = undefined; // a legacy key: BullMQ 6 refuses to read it
      }
      if (json) {
        found.push({
          // BullMQ counts iterations (`ic`) for job schedulers only.
          kind: json.iterationCount !== undefined ? 'job-scheduler' : 'legacy-repeatable',
          key,
          name: json.name,
          ...(json.pattern !== undefined && { pattern: json.pattern }),
          ...(json.tz !== undefined && { tz: json.tz }),
          ...(json.every !== undefined && { every: json.every }),
          ...(json.offset !== undefined && { offset: json.offset }),
          ...(json.limit !== undefined && { limit: json.limit }),
          ...(json.iterationCount !== undefined && { iterationCount: json.iterationCount }),
          ...(json.startDate !== undefined && { startDate: json.startDate }),
          ...(json.endDate !== undefined && { endDate: json.endDate }),
          ...(Number.isFinite(next) && { next }),
          ...(json.template?.data !== undefined && { data: json.template.data }),
          ...(json.template?.opts !== undefined && { opts: { ...json.template.opts } }),
        });
      } else {
        found.push(
          parseLegacyKey(key, Number.isFinite(next) ? next : undefined) ?? {
            kind: 'legacy-repeatable',
            key,
            name: key,
          },
        );
      }
    }
    return found;
  } finally {
    await queue.close();
    await redis.quit().catch(() => redis.disconnect());
  }
}

function defaultZone(tz: string | undefined): string {
  const zone = tz ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
  try {
    new CronParser('0 0 * * *', { timezone: zone });
  } catch (cause) {
    throw new ConfigError('--tz', `unknown time zone "${zone}"`, { cause });
  }
  return zone;
}

/** `import:bullmq --queue Q [--dry-run] [--json] [--tz ZONE]`. */
export function importBullmqCommand(io: CliIO) {
  return async (options: ImportOptions, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    if (options.queue.trim() === '') throw new ConfigError('--queue', 'must name a queue');
    if (ctx.config.redisClusterNodes) {
      throw new ConfigError(
        '--redis-cluster-nodes',
        "import:bullmq reads a queue on a single Redis only (its BullMQ prefix on a cluster is the application's own)",
      );
    }
    const zone = defaultZone(options.tz);
    await probeRedis(cliTarget(ctx.config), ctx.config.redisTimeoutMs);
    const sources = await readBullmqSchedules(ctx, options.queue);
    const now = io.now();
    const plan = sources.map((s) => planImport(s, options.queue, now, zone));
    const outcomes = await apply(ctx, plan, options.dryRun === true, now);
    if (options.json) {
      io.stdout(`${JSON.stringify(toJSON(options, outcomes), null, 2)}\n`);
    } else {
      io.stdout(report(options, ctx.config.prefix, outcomes));
    }
    return ExitCode.ok;
  };
}

/** Creates the mapped schedules (unless a dry run), leaving any bullbeat schedule of the same id alone. */
async function apply(
  ctx: CommandContext,
  plan: ImportPlanItem[],
  dryRun: boolean,
  now: number,
): Promise<Outcome[]> {
  const manager = new SchedulerManager({
    role: 'client',
    prefix: ctx.config.prefix,
    connection: cliConnection(ctx.config),
    logger: ctx.logger,
  });
  const outcomes: Outcome[] = [];
  const taken = new Set<string>();
  try {
    for (const item of plan) {
      if (!item.mapped) {
        outcomes.push({ item, action: 'not-mapped' });
        continue;
      }
      if (taken.has(item.id) || (await manager.get(item.id))) {
        outcomes.push({ item, action: 'exists' });
        continue;
      }
      taken.add(item.id);
      if (dryRun) {
        outcomes.push({ item, action: 'would-create', nextRunTime: item.trigger.nextFire(null, now) });
        continue;
      }
      const job = manager.schedule(item.target, item.trigger, item.options);
      await job.saved;
      outcomes.push({
        item,
        action: 'created',
        nextRunTime: (await manager.get(job.id))?.nextRunTime ?? null,
      });
    }
  } finally {
    await manager.close();
  }
  return outcomes;
}

const LABEL: Record<Action, string> = {
  created: 'created',
  'would-create': 'would create',
  exists: 'exists',
  'not-mapped': 'NOT MAPPED',
};

function report(options: ImportOptions, prefix: string, outcomes: Outcome[]): string {
  const q = options.queue;
  if (outcomes.length === 0) return `no job schedulers or repeatable jobs in BullMQ queue "${shown(q)}"\n`;
  const lines: string[] = [];
  const count = (a: Action) => outcomes.filter((o) => o.action === a).length;
  lines.push(
    `BullMQ queue "${q}" → bullbeat prefix "${prefix}"${options.dryRun ? ' (dry run: nothing is written)' : ''}`,
    '',
  );
  for (const { item, action, nextRunTime } of outcomes) {
    const what = item.source.kind === 'job-scheduler' ? 'job scheduler' : 'legacy repeatable job';
    lines.push(
      `${LABEL[action].padEnd(12)} ${item.id}  (${what} "${item.source.key}", jobs "${item.source.name}")`,
    );
    if (item.mapped && action !== 'exists') {
      const trigger = item.trigger.toJSON();
      const words =
        trigger.type === 'cron'
          ? `cron "${trigger.expression}": ${describeTrigger(trigger)}`
          : describeTrigger(trigger);
      lines.push(
        `             ${words} → jobs "${item.target.name}" on queue "${q}"; next run ${shortInstant(nextRunTime)}`,
      );
    }
    if (action === 'exists')
      lines.push('             a bullbeat schedule with this id exists: left as it is');
    if (!item.mapped) lines.push(`             ${item.reason}`);
    for (const m of item.mapping) lines.push(`               ${m}`);
  }
  const made = options.dryRun ? count('would-create') : count('created');
  lines.push(
    '',
    `${made} ${options.dryRun ? 'would be created' : 'created'}, ${count('exists')} already there, ` +
      `${count('not-mapped')} not mapped (immediately is not mapped yet: the first run is the next time after now).`,
    `The BullMQ originals are untouched: once the bullbeat schedules run, remove them ` +
      `(queue.removeJobScheduler(id)), or both will enqueue jobs.`,
  );
  return `${lines.map(shown).join('\n')}\n`;
}

function toJSON(options: ImportOptions, outcomes: Outcome[]) {
  return {
    queue: options.queue,
    dryRun: options.dryRun === true,
    items: outcomes.map(({ item, action, nextRunTime }) => ({
      action,
      id: item.id,
      source: item.source,
      mapping: item.mapping,
      ...(item.mapped
        ? { target: item.target, trigger: item.trigger.toJSON(), options: item.options, nextRunTime }
        : { reason: item.reason }),
    })),
  };
}
