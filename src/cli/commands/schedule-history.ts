import type { Command } from 'commander';
import { ScheduleNotFoundError } from '../../errors/index.js';
import { auditDetails } from '../../scheduler/index.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { formatTable, shortInstant } from '../format-table.js';
import { shown } from '../terminal-text.js';
import { withManager } from './admin.js';

/**
 * `schedule:history <id> [--limit n] [--json]`: who changed the schedule, what and when (its audit
 * trail), newest first; a removed schedule's while its trail is kept. Exit 4 when there is neither.
 */
export function historyCommand(io: CliIO) {
  return async (
    id: string,
    options: { json?: boolean; limit?: number },
    command: Command,
  ): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const { items, exists } = await withManager(ctx, async (m) => {
      const [trail, job] = await Promise.all([m.auditTrail(id, { limit: options.limit ?? 50 }), m.get(id)]);
      return { items: trail, exists: job !== undefined };
    });
    if (!exists && items.length === 0) throw new ScheduleNotFoundError(id);
    if (options.json) {
      io.stdout(`${JSON.stringify({ id, removed: !exists, items }, null, 2)}\n`);
      return ExitCode.ok;
    }
    if (items.length === 0) {
      io.stdout(`${shown(id)}: no changes recorded\n`);
      return ExitCode.ok;
    }
    const rows = items.map((e) => [
      shortInstant(e.at),
      e.op,
      e.onBehalfOf === undefined ? e.actor : `${e.actor} (for ${e.onBehalfOf})`,
      e.source,
      auditDetails(e),
    ]);
    io.stdout(`${formatTable(['TIME (UTC)', 'CHANGE', 'BY', 'VIA', 'DETAILS'], rows)}\n`);
    if (!exists) io.stdout(`(${shown(id)} is removed: its trail is kept for a while after the remove)\n`);
    return ExitCode.ok;
  };
}
