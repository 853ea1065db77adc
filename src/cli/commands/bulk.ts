import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { batchItems } from '../../../dashboard/internal.js';
import { ConfigError, ScheduleOptionsError } from '../../errors/index.js';
import type { BulkResult, ResumePolicy } from '../../scheduler/index.js';
import { parseSelector } from '../../store/index.js';
import { cliChange } from '../cli-actor.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { shown } from '../terminal-text.js';
import { type ActionOptions, actionCommand, withManager } from './admin.js';

type Control = 'schedule:pause' | 'schedule:resume' | 'schedule:remove';

const DONE = {
  'schedule:pause': 'paused',
  'schedule:resume': 'resumed',
  'schedule:remove': 'removed',
} as const;

/** The lines of a bulk result: what it changed, then each schedule it could not change. */
function printBulk(io: CliIO, r: BulkResult, what: string, json: boolean | undefined): number {
  if (json) io.stdout(`${JSON.stringify(r, null, 2)}\n`);
  else {
    io.stdout(
      `${shown(what)} ${r.count} of ${r.matched} schedules${r.selector ? ` matching ${shown(r.selector)}` : ''} (bulk change ${r.changeId})\n`,
    );
    for (const f of r.failed) io.stdout(`  ${shown(f.id)}: ${shown(f.error)}\n`);
  }
  return r.failed.length > 0 ? ExitCode.failure : ExitCode.ok;
}

/**
 * `schedule:pause|resume|remove [id] [--selector S]`: one schedule by id (as before), or every schedule
 * whose labels match the selector, as one bulk change. Exit 1 when some could not be changed.
 */
export function controlCommand(io: CliIO, action: Control) {
  const one = actionCommand(io, action);
  return async (
    id: string | undefined,
    options: ActionOptions & { json?: boolean; selector?: string },
    command: Command,
  ): Promise<number> => {
    if (options.selector === undefined) {
      if (id === undefined) {
        throw new ConfigError('<id>', 'give a schedule id, or --selector to pick schedules by their labels');
      }
      return one(id, options, command);
    }
    if (id !== undefined) {
      throw new ConfigError('--selector', `give a schedule id or --selector, not both (got the id "${id}")`);
    }
    const selector = parseSelector(options.selector, '--selector').text;
    const ctx = commandContext(io, command, 'cli');
    const r = await withManager(ctx, (m) => {
      const picked = m.select(selector);
      if (action === 'schedule:pause') {
        return picked.pause({ ...cliChange(), ...(options.note !== undefined && { note: options.note }) });
      }
      if (action === 'schedule:remove') return picked.remove(cliChange());
      const maxCatchUp = options.maxCatchUp;
      return picked.resume({
        ...cliChange(),
        ...(options.policy !== undefined && { policy: options.policy as ResumePolicy }),
        ...(maxCatchUp !== undefined && {
          maxCatchUp: /^\d+$/.test(maxCatchUp) ? Number(maxCatchUp) : (maxCatchUp as unknown as number),
        }),
      });
    });
    return printBulk(io, r, DONE[action], options.json);
  };
}

/**
 * `schedule:import <file>`: one schedule per line of an NDJSON file, each as `POST /api/schedules` takes
 * it. Every line is read first: the first bad one is exit 2 naming the line and field, nothing written.
 * Then all are saved by `scheduleMany` (created, or replaced when the id exists): one bulk change.
 * Blank lines and lines starting with `#` are skipped.
 */
export function importCommand(io: CliIO) {
  return async (file: string, options: { json?: boolean }, command: Command): Promise<number> => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new ConfigError('<file>', `cannot read "${file}": ${(err as Error).message}`);
    }
    const lines: number[] = [];
    const bodies: unknown[] = [];
    text.split('\n').forEach((line, i) => {
      const t = line.trim();
      if (t === '' || t.startsWith('#')) return;
      try {
        bodies.push(JSON.parse(t));
      } catch (err) {
        throw new ConfigError(`${file} line ${i + 1}`, `not JSON: ${(err as Error).message}`);
      }
      lines.push(i + 1);
    });
    if (bodies.length === 0) throw new ConfigError('<file>', `"${file}" holds no schedules`);
    const items = (() => {
      try {
        return batchItems(bodies, (i) => `@${lines[i]}`, io.now());
      } catch (err) {
        const e = err as { field?: string; reason?: string };
        const m = /^@(\d+)\.?(.*)$/.exec(e.field ?? '');
        if (m && e.reason !== undefined) {
          throw new ConfigError(`${file} line ${m[1]}`, `${m[2] === '' ? '' : `${m[2]}: `}${e.reason}`);
        }
        throw err;
      }
    })();
    const ctx = commandContext(io, command, 'cli');
    const r = await withManager(
      ctx,
      (m) =>
        m.scheduleMany(items, cliChange()).catch((err: unknown) => {
          // the library names an item `[i]`: the line it came from
          const at = err instanceof ScheduleOptionsError ? /^\[(\d+)\]\.?(.*)$/.exec(err.field) : null;
          if (!at) throw err;
          const where = `${file} line ${lines[Number(at[1])]}`;
          throw new ConfigError(
            where,
            `${at[2] === '' ? '' : `${at[2]}: `}${(err as ScheduleOptionsError).reason}`,
          );
        }),
      { creates: true },
    );
    return printBulk(io, r, 'imported', options.json);
  };
}
