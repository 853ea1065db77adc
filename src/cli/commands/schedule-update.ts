import type { Command } from 'commander';
import { ConfigError } from '../../errors/index.js';
import type { MisfirePolicy, SchedulePatch } from '../../scheduler/index.js';
import { firstProblem, scheduleOptionsSchema } from '../../store/index.js';
import { cliChange } from '../cli-actor.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { shortInstant } from '../format-table.js';
import { numericFlag } from '../numeric-flag.js';
import { describeChanges } from '../schedule-changes.js';
import { shown } from '../terminal-text.js';
import { triggerWords, withManager } from './admin.js';
import { type AddOptions, defWords, extras, flagOf, triggerFromFlags } from './schedule-add.js';

/** `schedule:update`'s flags: those of `schedule:add`, every one optional. */
export interface UpdateOptions extends Omit<AddOptions, 'name' | 'id' | 'replace'> {
  name?: string;
  misfire?: MisfirePolicy;
}

/**
 * The patch the flags give: a trigger when --cron, --every or --at is given (exactly one, read as
 * `schedule:add` reads them), and the options given, checked before connecting by the rules the
 * library and the API use. Nothing given is refused.
 */
export function patchFromFlags(o: UpdateOptions, now: number): SchedulePatch {
  const timing = o.cron !== undefined || o.every !== undefined || o.at !== undefined;
  if (!timing) {
    for (const flag of ['tz', 'jitter', 'allowPast'] as const) {
      if (o[flag] !== undefined) {
        const name = flag === 'allowPast' ? '--allow-past' : `--${flag}`;
        throw new ConfigError(name, 'applies to a new trigger: give it with --cron, --every or --at');
      }
    }
  }
  let data: unknown;
  if (o.data !== undefined) {
    try {
      data = JSON.parse(o.data);
    } catch (cause) {
      throw new ConfigError('--data', `expected JSON: ${(cause as Error).message}`, { cause });
    }
  }
  const given: Record<string, unknown> = {
    name: o.name,
    queue: o.queue,
    data,
    attempts: numericFlag('--attempts', o.attempts),
    maxInstances: numericFlag('--max-instances', o.maxInstances),
    timeoutMs: numericFlag('--timeout-ms', o.timeoutMs),
    misfire: o.misfire,
  };
  for (const k of Object.keys(given)) if (given[k] === undefined) delete given[k];
  const checked = scheduleOptionsSchema.safeParse(given);
  if (!checked.success) {
    const { field, reason } = firstProblem(checked.error);
    throw new ConfigError(flagOf(field), reason);
  }
  const patch = given as SchedulePatch;
  if (timing) patch.trigger = triggerFromFlags({ ...o, name: o.name ?? '' }, now);
  if (Object.keys(patch).length === 0) {
    throw new ConfigError(
      '--cron/--every/--at',
      'nothing to change: give a new trigger (--cron, --every, --at) or an option (--queue, --attempts, ...)',
    );
  }
  return patch;
}

/**
 * `schedule:update <id> [flags of schedule:add]`: change a runtime schedule's trigger or options, the
 * rest kept (`SchedulerManager.update`). Prints what changed. A code schedule is refused (exit 2).
 */
export function updateCommand(io: CliIO) {
  return async (id: string, options: UpdateOptions, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const patch = patchFromFlags(options, io.now());
    const { job, before } = await withManager(ctx, async (m) => {
      const existing = await m.get(id);
      const updated = await m.update(id, patch, cliChange());
      return { job: updated, before: existing?.def };
    });
    const json = job.toJSON();
    if (options.json) {
      io.stdout(`${JSON.stringify(json, null, 2)}\n`);
      return ExitCode.ok;
    }
    io.stdout(
      `updated ${shown(json.id)}: ${triggerWords(json)}; jobs "${shown(json.name)}" on queue "${shown(json.queue)}"${extras(job.def)}; ${json.status === 'active' ? `next run ${shortInstant(json.nextRunTime)}` : json.status}\n`,
    );
    if (before) io.stdout(`changed: ${shown(describeChanges(before, job.def, defWords))}\n`);
    return ExitCode.ok;
  };
}
