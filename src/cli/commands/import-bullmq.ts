import type { Command } from 'commander';
import { CronParser } from '../../cron/index.js';
import { ConfigError } from '../../errors/index.js';
import { SchedulerManager } from '../../scheduler/index.js';
import { JOB_PAYLOADS, type JobPayload, redisTarget } from '../../store/index.js';
import { describeTrigger } from '../../triggers/index.js';
import {
  BullmqHandOver,
  type FinishedHandOver,
  type HandOverState,
  HOLD_AHEAD_MS,
} from '../bullmq-hand-over.js';
import { type ImportPlanItem, planImport } from '../bullmq-import-plan.js';
import { BullmqOriginals } from '../bullmq-originals.js';
import { cliChange } from '../cli-actor.js';
import { cliConnection } from '../cli-config.js';
import type { CliIO } from '../cli-io.js';
import { type CommandContext, commandContext } from '../command-context.js';
import { resolvePrefix } from '../discover-prefix.js';
import { ExitCode } from '../exit-codes.js';
import { shortInstant } from '../format-table.js';
import { cliTarget, probeRedis } from '../redis-probe.js';
import { shown } from '../terminal-text.js';

interface ImportOptions {
  queue: string;
  payload?: string;
  removeOriginals?: boolean;
  dryRun?: boolean;
  json?: boolean;
  tz?: string;
}

type Action = 'created' | 'would-create' | 'exists' | 'not-mapped';

interface Outcome {
  item: ImportPlanItem;
  action: Action;
  nextRunTime?: number | null;
  /** Under `--remove-originals`: what became of the BullMQ original. */
  original?: 'removed' | 'gone' | 'would-remove';
  /** A job scheduler's: where it stands between BullMQ and bullbeat. */
  handover?: HandOverState;
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

/** `import:bullmq --queue Q [--payload plain|wrapped] [--remove-originals] [--dry-run] [--json] [--tz ZONE]`. */
export function importBullmqCommand(io: CliIO) {
  return async (options: ImportOptions, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    if (options.queue.trim() === '') throw new ConfigError('--queue', 'must name a queue');
    const payload = options.payload ?? 'plain';
    if (!(JOB_PAYLOADS as readonly string[]).includes(payload)) {
      throw new ConfigError('--payload', `expected plain or wrapped (got "${payload}")`);
    }
    const zone = defaultZone(options.tz);
    await probeRedis(cliTarget(ctx.config), ctx.config.redisTimeoutMs);
    await resolvePrefix(ctx);
    const originals = new BullmqOriginals(redisTarget(cliConnection(ctx.config)), options.queue);
    try {
      const sources = await originals.read();
      const now = io.now();
      const removing = options.removeOriginals === true;
      const plan = sources.map((s) => {
        const item = planImport(s, options.queue, now, zone, payload as JobPayload);
        return options.dryRun ? item : held(item, now);
      });
      const outcomes = await apply(ctx, plan, options.dryRun === true, now);
      const finished = options.dryRun === true ? [] : await settle(ctx, originals, outcomes, removing);
      if (removing) await removeOriginals(originals, outcomes, options.dryRun === true);
      if (options.json) {
        io.stdout(`${JSON.stringify(toJSON(options, outcomes, finished), null, 2)}\n`);
      } else {
        io.stdout(report(options, ctx.config.prefix, outcomes, finished));
      }
      return ExitCode.ok;
    } finally {
      await originals.close();
    }
  };
}

/**
 * A job scheduler with a pending job is created starting a while after it (`HOLD_AHEAD_MS`), so that
 * no replica claims an occurrence of it before it is held (paused) and its start set back
 * (`BullmqHandOver`): BullMQ runs each of its occurrences until the hand-over.
 */
function held(item: ImportPlanItem, now: number): ImportPlanItem {
  const next = item.source.next;
  if (!item.mapped || item.source.kind !== 'job-scheduler' || next === undefined) return item;
  const startAt = Math.max(item.source.startDate ?? 0, Math.max(next, now) + HOLD_AHEAD_MS);
  return { ...item, options: { ...item.options, startAt } };
}

/**
 * Holds each job scheduler's schedule while BullMQ's scheduler lives and, when `removing`, hands it
 * over (`BullmqHandOver`); the report then shows the schedule as it is after it. When `removing`,
 * also finishes the hand-overs of this queue whose BullMQ side is gone already (cut short earlier).
 */
async function settle(
  ctx: CommandContext,
  originals: BullmqOriginals,
  outcomes: Outcome[],
  removing: boolean,
): Promise<FinishedHandOver[]> {
  const manager = new SchedulerManager({
    role: 'client',
    prefix: ctx.config.prefix,
    connection: cliConnection(ctx.config),
    logger: ctx.logger,
  });
  try {
    const handOver = new BullmqHandOver(manager, originals, cliChange());
    for (const o of outcomes) {
      if (!o.item.mapped || (o.action !== 'created' && o.action !== 'exists')) continue;
      const done = await handOver.settle(o.item.id, o.item.source, o.action === 'created', removing);
      if (!done) continue;
      o.handover = done.handover;
      if (done.original) o.original = done.original;
      const job = await manager.get(o.item.id);
      if (o.action === 'created' && job) {
        // the report shows the window and the runs left as the hand-over set them
        o.nextRunTime = job.nextRunTime;
        const { startAt: _s, endAt: _e, maxRuns: _m, ...rest } = o.item.options;
        const { startAt, endAt, maxRuns } = job.def;
        o.item.options = {
          ...rest,
          ...(startAt !== undefined && { startAt }),
          ...(endAt !== undefined && { endAt }),
          ...(maxRuns !== undefined && { maxRuns }),
        };
      }
    }
    if (!removing) return [];
    return await handOver.finishCutShort(new Set(outcomes.map((o) => o.item.id)));
  } finally {
    await manager.close();
  }
}

/**
 * Removes each original that is now a bullbeat schedule (created, or there from an earlier import)
 * and was not settled by a hand-over, after every schedule was written: a failure before leaves every
 * original in place.
 */
async function removeOriginals(
  originals: BullmqOriginals,
  outcomes: Outcome[],
  dryRun: boolean,
): Promise<void> {
  for (const o of outcomes) {
    if (o.action !== 'created' && o.action !== 'exists' && o.action !== 'would-create') continue;
    if (dryRun) {
      o.original = 'would-remove';
      continue;
    }
    if (o.original !== undefined || o.handover !== undefined) continue;
    o.original = await originals.remove(o.item.source);
  }
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
      const job = manager.schedule(item.target, item.trigger, item.options, cliChange());
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

const ORIGINAL: Record<NonNullable<Outcome['original']>, string> = {
  removed: 'removed',
  gone: 'already gone',
  'would-remove': 'would be removed',
};

const LABEL: Record<Action, string> = {
  created: 'created',
  'would-create': 'would create',
  exists: 'exists',
  'not-mapped': 'NOT MAPPED',
};

function report(
  options: ImportOptions,
  prefix: string,
  outcomes: Outcome[],
  finished: FinishedHandOver[],
): string {
  const q = options.queue;
  const done = finished.flatMap((f) => [
    `${'finished'.padEnd(12)} ${f.id}  (its hand-over from BullMQ's job scheduler "${f.scheduler}", whose entry is gone)`,
    `             hand-over: ${handOverWords(f.handover)}`,
  ]);
  if (outcomes.length === 0) {
    const none = `no job schedulers or repeatable jobs in BullMQ queue "${q}"`;
    return `${[none, ...done].map(shown).join('\n')}\n`;
  }
  const lines: string[] = [];
  const count = (a: Action) => outcomes.filter((o) => o.action === a).length;
  lines.push(
    `BullMQ queue "${q}" → bullbeat prefix "${prefix}"${options.dryRun ? ' (dry run: nothing is written)' : ''}`,
    '',
    ...done,
  );
  for (const { item, action, nextRunTime, original, handover } of outcomes) {
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
        `             ${words} → jobs "${item.target.name}" on queue "${q}"; next run ${handover?.state === 'held' || handover?.state === 'moved-on' ? 'after the hand-over' : shortInstant(nextRunTime)}`,
      );
    }
    if (action === 'exists')
      lines.push('             a bullbeat schedule with this id exists: left as it is');
    if (original) lines.push(`             BullMQ original: ${ORIGINAL[original]}`);
    if (handover) lines.push(`             hand-over: ${handOverWords(handover)}`);
    if (!item.mapped) lines.push(`             ${item.reason}`);
    for (const m of item.mapping) lines.push(`               ${m}`);
  }
  const made = options.dryRun ? count('would-create') : count('created');
  const removed = outcomes.filter((o) => o.original === 'removed' || o.original === 'would-remove').length;
  lines.push(
    '',
    `${made} ${options.dryRun ? 'would be created' : 'created'}, ${count('exists')} already there, ` +
      `${count('not-mapped')} not mapped (immediately is not mapped yet: the first run is the next time after now).`,
    options.payload === 'wrapped'
      ? "Payload wrapped: each job's data is bullbeat's envelope; your schedule's data is job.data.data."
      : "Payload plain: each job's data is the schedule's own data, as BullMQ made it; your workers need no change.",
    options.removeOriginals
      ? `${removed} BullMQ original${removed === 1 ? '' : 's'} ${options.dryRun ? 'would be ' : ''}removed: ` +
          "jobs already in the queue (waiting, active, a job scheduler's pending one) run once as they are, " +
          'except a pending job that bullbeat runs instead (see its hand-over).'
      : 'The BullMQ originals are untouched and keep running: each schedule made from a job scheduler is ' +
          'paused until its hand-over (run again with --remove-originals: BullMQ runs its pending job, ' +
          'bullbeat each occurrence after it).',
    `Run the schedules: bullbeat scheduler (no jobs module needed) with BULLBEAT_PREFIX=${prefix}.`,
  );
  return `${lines.map(shown).join('\n')}\n`;
}

/** What happens to each occurrence of one job scheduler: which side runs it, from when. */
function handOverWords(h: HandOverState): string {
  const iso = (ms: number) => new Date(ms).toISOString();
  switch (h.state) {
    case 'held':
      return "not yet: BullMQ's job scheduler runs each occurrence; this schedule is paused until import:bullmq --remove-originals hands it over";
    case 'handed-over':
      return (
        `BullMQ runs its pending job at ${iso(h.until)} and nothing after it; ` +
        (h.next === null
          ? 'bullbeat runs none (the schedule has no occurrence after it)'
          : `bullbeat runs each occurrence from ${iso(h.next)}`)
      );
    case 'taken':
      return `the bullbeat schedule already ran beside BullMQ: BullMQ's pending job${h.at === null ? '' : ` at ${iso(h.at)}`} was removed with its job scheduler, and bullbeat runs that occurrence`;
    case 'both':
      return "none: a bullbeat schedule of this id was already running, and BullMQ's job scheduler runs beside it: both run each occurrence until --remove-originals";
    case 'moved-on':
      return 'not done: BullMQ moved on to a new pending job at each try; the schedule stays paused and BullMQ runs each occurrence: run the import again';
  }
}

function toJSON(options: ImportOptions, outcomes: Outcome[], finished: FinishedHandOver[]) {
  return {
    queue: options.queue,
    ...(finished.length > 0 && { finished }),
    dryRun: options.dryRun === true,
    payload: options.payload ?? 'plain',
    removeOriginals: options.removeOriginals === true,
    items: outcomes.map(({ item, action, nextRunTime, original, handover }) => ({
      action,
      ...(original && { original }),
      ...(handover && { handover }),
      id: item.id,
      source: item.source,
      mapping: item.mapping,
      ...(item.mapped
        ? { target: item.target, trigger: item.trigger.toJSON(), options: item.options, nextRunTime }
        : { reason: item.reason }),
    })),
  };
}
