import type { Command } from 'commander';
import { ConfigError, ScheduleNotFoundError, ScheduleOptionsError } from '../../errors/index.js';
import type { ResumePolicy, ScheduledJobJSON } from '../../scheduler/index.js';
import { internalsOf, SchedulerManager } from '../../scheduler/index.js';
import {
  checkDeployment,
  deploymentExists,
  type PauseNote,
  parseSelector,
  ScheduleStatus,
} from '../../store/index.js';
import { describeTrigger } from '../../triggers/index.js';
import { cliChange } from '../cli-actor.js';
import { cliConnection } from '../cli-config.js';
import type { CliIO } from '../cli-io.js';
import { type CommandContext, commandContext } from '../command-context.js';
import { checkPrefixFound, resolvePrefix } from '../discover-prefix.js';
import { ExitCode } from '../exit-codes.js';
import { formatTable, shortInstant } from '../format-table.js';
import { numericFlag } from '../numeric-flag.js';
import { cliTarget, probeRedis } from '../redis-probe.js';
import { shown } from '../terminal-text.js';

/**
 * Runs `fn` with a client-role manager on the configured Redis and prefix; closes it after. A command
 * that may start a deployment (`schedule:add`) says `creates`; any other is refused on a named prefix
 * this Redis holds nothing under while it holds others (`checkPrefixFound`).
 */
export async function withManager<T>(
  ctx: CommandContext,
  fn: (manager: SchedulerManager) => Promise<T>,
  options: { creates?: boolean } = {},
): Promise<T> {
  await probeRedis(cliTarget(ctx.config), ctx.config.redisTimeoutMs);
  await resolvePrefix(ctx);
  const manager = new SchedulerManager({
    role: 'client',
    prefix: ctx.config.prefix,
    connection: cliConnection(ctx.config),
    logger: ctx.logger,
  });
  try {
    // before any command reads or writes: another partition count than the deployment's, or a newer
    // data format than this release's, is exit 2
    await checkDeployment(internalsOf(manager).redis, internalsOf(manager).keys, false);
    if (!options.creates)
      await checkPrefixFound(ctx, () =>
        deploymentExists(internalsOf(manager).redis, internalsOf(manager).keys),
      );
    return await fn(manager);
  } finally {
    await manager.close();
  }
}

/** The trigger of a stored schedule in words (a custom trigger's kind escaped: code named it). */
export function triggerWords(job: ScheduledJobJSON): string {
  if (job.spec.type === 'custom') return `custom trigger (${shown(job.spec.kind)}, defined in code)`;
  try {
    return describeTrigger(job.spec);
  } catch {
    return shown(job.trigger);
  }
}

const LIST_STATUSES: readonly string[] = Object.values(ScheduleStatus);

/** `schedule:list [--selector S] [--status S] [--queue Q] [--search T] [--limit N] [--json]`. */
export function listCommand(io: CliIO) {
  return async (
    options: {
      json?: boolean;
      selector?: string;
      status?: string;
      queue?: string;
      search?: string;
      limit?: string;
    },
    command: Command,
  ): Promise<number> => {
    const selector =
      options.selector === undefined ? undefined : parseSelector(options.selector, '--selector');
    if (options.status !== undefined && !LIST_STATUSES.includes(options.status)) {
      throw new ConfigError(
        '--status',
        `expected one of ${LIST_STATUSES.join(', ')} (got "${options.status}")`,
      );
    }
    const limit = numericFlag('--limit', options.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw new ConfigError('--limit', `expected a whole number from 1 (got "${options.limit}")`);
    }
    const ctx = commandContext(io, command, 'cli');
    const query = {
      ...(selector !== undefined && { selector: selector.text }),
      ...(options.status !== undefined && { status: options.status as ScheduleStatus }),
      ...(options.queue !== undefined && { queue: options.queue }),
      ...(options.search !== undefined && { search: options.search }),
      ...(limit !== undefined && { limit }),
    };
    // a schedule on a calendar: its next run as it will happen (a roll applied), its stored wake-up
    // apart (`wakeUpTime`, as `get()` gives them); a filter reads the list indexes, a page what it needs
    const { jobs, total, totalAtLeast } = await withManager(ctx, async (m) => {
      const page = await m.listPage(query);
      return { jobs: page.items.map((j) => j.toJSON()), total: page.total, totalAtLeast: page.totalAtLeast };
    });
    if (options.json) {
      io.stdout(`${JSON.stringify(jobs, null, 2)}\n`);
      return ExitCode.ok;
    }
    if (jobs.length === 0) {
      io.stdout(`no schedules under prefix "${shown(ctx.config.prefix)}"\n`);
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
    const of = total > jobs.length ? ` of ${totalAtLeast ? 'at least ' : ''}${total}` : '';
    io.stdout(
      `${jobs.length}${of} schedule${jobs.length === 1 && of === '' ? '' : 's'} under prefix "${shown(ctx.config.prefix)}"\n`,
    );
    const noted = jobs.filter((j) => j.pauseNote && j.pauseNote.note !== '');
    if (noted.length > 0) {
      io.stdout(`\npaused with a note:\n`);
      for (const j of noted) io.stdout(`  ${shown(j.id)}: ${noteLine(j.pauseNote!)}\n`);
    }
    const errored = jobs.filter((j) => j.error !== null);
    if (errored.length > 0) {
      io.stdout(`\n${errored.length} errored (fix or remove them: they fire no more):\n`);
      for (const j of errored) io.stdout(`  ${shown(j.id)}: ${shown(j.error?.reason ?? '')}\n`);
    }
    return ExitCode.ok;
  };
}

type Action = 'schedule:pause' | 'schedule:resume' | 'schedule:trigger' | 'schedule:remove';

/** The word of an action in its `--json` result. */
const ACTION_WORD = {
  'schedule:pause': 'pause',
  'schedule:resume': 'resume',
  'schedule:trigger': 'trigger',
  'schedule:remove': 'remove',
} as const satisfies Record<Action, ActionResult['action']>;

/** `"why" (by who, when)`: a pause note in one line, its control characters escaped. */
export function noteLine(n: PauseNote): string {
  const who = n.onBehalfOf === undefined ? n.by : `${n.by} for ${n.onBehalfOf}`;
  return shown(`${n.note === '' ? '(no note)' : `"${n.note}"`} (by ${who}, ${shortInstant(n.at)})`);
}

/** Flags of `schedule:pause` (`--note`) and `schedule:resume` (`--policy`, `--max-catch-up`). */
export interface ActionOptions {
  note?: string;
  policy?: string;
  maxCatchUp?: string;
  data?: string;
}

/** What a control did, as `--json` prints it: `done` false when there was nothing to do. */
interface ActionResult {
  id: string;
  action: 'pause' | 'resume' | 'trigger' | 'remove';
  done: boolean;
  /** The schedule's status after the action (not for remove). */
  status?: string;
  note?: string;
  caughtUp?: number;
  nextRunTime?: number | null;
  jobId?: string;
  fireAt?: number;
}

/** `schedule:pause|resume|trigger|remove <id> [--json]`: exit 0 when done (or already so), 4 when there is no such schedule. */
export function actionCommand(io: CliIO, action: Action) {
  return async (
    id: string,
    options: ActionOptions & { json?: boolean },
    command: Command,
  ): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    // no such schedule: nothing done. `--json` still prints its document, `done: false`, before the
    // error (stderr, exit 4)
    const missing = (err: unknown): never => {
      if (options?.json && err instanceof ScheduleNotFoundError) {
        const result: ActionResult = { id, action: ACTION_WORD[action], done: false };
        io.stdout(`${JSON.stringify(result, null, 2)}\n`);
      }
      throw err;
    };
    const { line, result } = await withManager(
      ctx,
      async (m): Promise<{ line: string; result: ActionResult }> => {
        switch (action) {
          case 'schedule:pause': {
            const note = options?.note;
            if (await m.pause(id, { ...cliChange(), ...(note !== undefined && { note }) })) {
              return {
                line: `paused ${id}${note ? `: "${note}"` : ''}`,
                result: {
                  id,
                  action: 'pause',
                  done: true,
                  status: 'paused',
                  ...(note !== undefined && { note }),
                },
              };
            }
            const status = await statusOf(m, id);
            return {
              line: `${id} was not active (${status}): nothing to do`,
              result: { id, action: 'pause', done: false, status },
            };
          }
          case 'schedule:resume': {
            let caughtUp = 0;
            m.on('fired', (e) => {
              if (e.scheduleId === id && e.kind === 'catch-up') caughtUp++;
            });
            const maxCatchUp = options?.maxCatchUp;
            const resumed = await m.resume(id, {
              ...cliChange(),
              ...(options?.policy !== undefined && { policy: options.policy as ResumePolicy }),
              ...(maxCatchUp !== undefined && {
                maxCatchUp: /^\d+$/.test(maxCatchUp) ? Number(maxCatchUp) : (maxCatchUp as unknown as number),
              }),
            });
            if (!resumed) {
              const status = await statusOf(m, id);
              return {
                line: `${id} was not paused (${status}): nothing to do`,
                result: { id, action: 'resume', done: false, status },
              };
            }
            const job = await m.get(id);
            const policy = options?.policy ?? 'skip';
            const runs =
              policy === 'skip'
                ? ''
                : `; ${caughtUp} catch-up run${caughtUp === 1 ? '' : 's'} enqueued (policy ${policy})`;
            return {
              line: `resumed ${id}${runs}; next run ${shortInstant(job?.nextRunTime)}`,
              result: {
                id,
                action: 'resume',
                done: true,
                status: job?.status ?? 'active',
                caughtUp,
                nextRunTime: job?.nextRunTime ?? null,
              },
            };
          }
          case 'schedule:trigger': {
            const data = options?.data === undefined ? undefined : jsonFlag('--data', options.data);
            const { jobId, fireAt } = await m
              .triggerNow(id, { ...cliChange(), ...(data !== undefined && { data: data.value }) })
              .catch(asDataFlag);
            return {
              line: `triggered ${id}: job ${jobId} enqueued at ${new Date(fireAt).toISOString()}${data ? ' with its data overridden' : ''}`,
              result: { id, action: 'trigger', done: true, jobId, fireAt },
            };
          }
          case 'schedule:remove':
            if (!(await m.remove(id, cliChange()))) throw new ScheduleNotFoundError(id);
            return { line: `removed ${id}`, result: { id, action: 'remove', done: true } };
        }
      },
    ).catch(missing);
    io.stdout(options?.json ? `${JSON.stringify(result, null, 2)}\n` : `${shown(line)}\n`);
    return ExitCode.ok;
  };
}

/** A JSON flag's value (a `ConfigError` naming the flag when it does not parse). */
export function jsonFlag(flag: string, text: string): { value: unknown } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    throw new ConfigError(flag, `must be JSON (${(err as Error).message})`);
  }
}

/** An overridden `data` refused by the library (over the size limit) is the `--data` flag's fault. */
function asDataFlag(err: unknown): never {
  if (err instanceof ScheduleOptionsError && err.field === 'data') {
    throw new ConfigError('--data', err.reason, { cause: err });
  }
  throw err;
}

async function statusOf(m: SchedulerManager, id: string): Promise<string> {
  const job = await m.get(id);
  if (!job) throw new ScheduleNotFoundError(id);
  return job.orphaned ? 'orphaned' : job.status;
}
