import type { Command } from 'commander';
import { changeWords } from '../../scheduler/index.js';
import { cliChange } from '../cli-actor.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { shortInstant } from '../format-table.js';
import { shown } from '../terminal-text.js';
import { withManager } from './admin.js';

/**
 * `schedule:revert <id> [--to <entry>] [--json]`: a runtime schedule back to a definition from its
 * audit trail, as a new audited change; exit 2 naming `to` or `source` when refused, 4 when no schedule.
 */
export function revertCommand(io: CliIO) {
  return async (id: string, options: { to?: string; json?: boolean }, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const r = await withManager(ctx, (m) =>
      m.revert(id, { ...cliChange(), ...(options.to !== undefined && { to: options.to }) }),
    );
    if (options.json) {
      const { job, entry, changes } = r;
      io.stdout(
        `${JSON.stringify({ id, entry, done: changes.length > 0, changes, schedule: job.toJSON() }, null, 2)}\n`,
      );
      return ExitCode.ok;
    }
    if (r.changes.length === 0) {
      io.stdout(`${shown(id)}: already as audit entry ${r.entry} leaves it: nothing to do\n`);
      return ExitCode.ok;
    }
    const lines = [
      `reverted ${id} (audit entry ${r.entry}):`,
      ...r.changes.map((c) => `  ${changeWords(c)}`),
    ];
    lines.push(`next run ${shortInstant(r.job.nextRunTime)}`);
    io.stdout(`${lines.map(shown).join('\n')}\n`);
    return ExitCode.ok;
  };
}
