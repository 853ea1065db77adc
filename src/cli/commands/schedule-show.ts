import type { Command } from 'commander';
import { ScheduleNotFoundError } from '../../errors/index.js';
import { describeExpectations, formatSpread } from '../../store/index.js';
import { triggerTimezone } from '../../triggers/index.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { shortInstant } from '../format-table.js';
import { shown } from '../terminal-text.js';
import { noteLine, triggerWords, withManager } from './admin.js';

/** `schedule:show <id> [--json]`: one schedule in full, its pause note and error included. */
export function showCommand(io: CliIO) {
  return async (id: string, options: { json?: boolean }, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const job = await withManager(ctx, async (m) => {
      const found = await m.get(id);
      if (!found) throw new ScheduleNotFoundError(id);
      // the newest record that names an error (history is newest first)
      const failed = (await m.history.list(id)).find((r) => r.error !== undefined && r.error !== '');
      const lastError = failed
        ? { fireAt: failed.fireAt, outcome: failed.outcome, error: failed.error! }
        : null;
      // on a calendar, `nextRunTime` is the run as it will happen (the calendar applied, an
      // `onExcluded` roll included) and `wakeUpTime` the due time stored, when they differ
      return { json: found.toJSON(), def: found.def, lastError };
    });
    const j = job.json;
    if (options.json) {
      io.stdout(`${JSON.stringify({ ...j, definition: job.def, lastError: job.lastError }, null, 2)}\n`);
      return ExitCode.ok;
    }
    const rows: [string, string][] = [
      ['id', j.id],
      ['name', j.name],
      ['queue', j.queue],
      ['source', j.source],
      ['status', j.orphaned ? 'paused (orphaned)' : j.status],
      ['trigger', triggerWords(j)],
      ['next run', shortInstant(j.nextRunTime)],
      ...(j.wakeUpTime !== undefined
        ? [['wakes up', `${shortInstant(j.wakeUpTime)} (its calendar moves the run)`] as [string, string]]
        : []),
      ...spreadRows(j.spread),
      ['last run', shortInstant(j.lastRunTime)],
      [
        'runs',
        // `runs` counts every finished run, the failed ones included
        `${j.runs} finished (${j.runs - j.errors} ok, ${j.errors} failed), ${j.skipped} skipped, ${j.missed} missed, ${j.coalesced} coalesced (${j.fired} enqueued)`,
      ],
    ];
    if (job.lastError) {
      const e = job.lastError;
      rows.push(['last error', `${firstLine(e.error)} (occurrence ${shortInstant(e.fireAt)}, ${e.outcome})`]);
    }
    if (job.def.expect) {
      rows.push(['expects', describeExpectations(job.def.expect, triggerTimezone(job.def.trigger) ?? 'UTC')]);
    }
    if (j.pauseNote) rows.push(['paused', noteLine(j.pauseNote)]);
    if (j.error) rows.push(['error', j.error.reason]);
    const width = Math.max(...rows.map(([k]) => k.length));
    for (const [k, v] of rows) io.stdout(`${k.padEnd(width)}  ${shown(v)}\n`);
    return ExitCode.ok;
  };
}

/** The first line of an error, at most 300 characters: the message, not its stack. */
function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** A spread schedule's rows: the window and offset, and the instant its next occurrence fires. */
function spreadRows(spread: { ms: number; offsetMs: number; nextFiresAt: number | null } | undefined) {
  if (!spread) return [];
  return [
    ['spread', `${formatSpread(spread.ms)} window, offset ${formatSpread(spread.offsetMs)} (from the id)`],
    ['next fires', shortInstant(spread.nextFiresAt)],
  ] as [string, string][];
}
