import type { Command } from 'commander';
import { DateTime } from 'luxon';
import { ConfigError, ScheduleOptionsError } from '../../errors/index.js';
import {
  type BackfillOccurrence,
  type BackfillOnly,
  type BackfillOptions,
  type BackfillProgress,
  resolveBackfillOptions,
  type SelectionBackfillResult,
} from '../../scheduler/index.js';
import { type OverlapPolicy, parseSelector } from '../../store/index.js';
import { cliChange } from '../cli-actor.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { numericFlag } from '../numeric-flag.js';
import { shown } from '../terminal-text.js';
import { jsonFlag, withManager } from './admin.js';

export interface BackfillFlags {
  from: string;
  to: string;
  dryRun?: boolean;
  json?: boolean;
  rate?: string;
  max?: string;
  overlap?: OverlapPolicy;
  only?: BackfillOnly;
  data?: string;
  selector?: string;
}

/** The flag that gave each option, to name it in errors. */
const FLAG: Record<string, string> = {
  from: '--from',
  to: '--to',
  ratePerSecond: '--rate',
  maxOccurrences: '--max',
  overlap: '--overlap',
  only: '--only',
  data: '--data',
};

/** Epoch ms as a number, anything else as given (the library's rule reads ISO 8601 and judges it). */
const instantFlag = (text: string): number | string => (/^\d+$/.test(text.trim()) ? Number(text) : text);

const WORDS: Record<BackfillOccurrence['status'], string> = {
  enqueued: 'enqueued',
  'to-enqueue': 'to enqueue',
  ran: 'not run: already enqueued or run',
  backfilled: 'not run: already backfilled',
  scheduled: 'not run: the schedule fires it itself',
  future: 'not run: in the future',
  stopped: 'not run: the schedule was paused while the backfill ran',
  'not-selected': 'not run: not what --only names',
};

/** `Fri 2026-03-06 02:30:00 EST (-05:00)`: an instant in a zone, as `schedule:next` shows it. */
function inZone(t: number, zone: string): string {
  return DateTime.fromMillis(t, { zone }).toFormat('ccc yyyy-MM-dd HH:mm:ss ZZZZ (ZZ)');
}

/** A progress bar on a terminal (one line, redrawn); plain lines at each tenth otherwise. */
function progressPrinter(io: CliIO): (p: BackfillProgress) => void {
  let lastTenth = -1;
  return (p) => {
    const share = p.total === 0 ? 1 : p.enqueued / p.total;
    if (io.stdoutIsTTY) {
      const width = 30;
      const full = Math.round(share * width);
      io.stdout(
        `\r[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${p.enqueued}/${p.total} enqueued${p.done ? '\n' : ''}`,
      );
      return;
    }
    const tenth = Math.floor(share * 10);
    if (tenth !== lastTenth || p.done) {
      lastTenth = tenth;
      io.stdout(`enqueued ${p.enqueued}/${p.total}\n`);
    }
  };
}

/** How many fire times a schedule's line of a bulk backfill shows (the rest counted). */
const SHOWN_FIRE_TIMES = 5;

/**
 * A backfill by selector: one line per schedule that enqueued (dry run: would enqueue) something, with
 * its first fire times, then the total; each schedule that could not be backfilled, with why. Exit 1
 * when one could not.
 */
function printSelectionBackfill(io: CliIO, r: SelectionBackfillResult, json: boolean | undefined): number {
  if (json) {
    io.stdout(`${JSON.stringify(r, null, 2)}\n`);
    return r.failed.length > 0 ? ExitCode.failure : ExitCode.ok;
  }
  const iso = (t: number) => new Date(t).toISOString();
  const lines = [
    `${r.selector ?? ''}: ${r.matched} schedule${r.matched === 1 ? '' : 's'} matched, range [${iso(r.from)}, ${iso(r.to)})`,
  ];
  for (const s of r.schedules) {
    if (s.enqueued === 0) continue;
    const shownTimes = s.fireTimes.slice(0, SHOWN_FIRE_TIMES).map(iso).join(', ');
    const more = s.fireTimes.length - SHOWN_FIRE_TIMES;
    lines.push(
      `  ${s.scheduleId}: ${s.enqueued} ${r.dryRun ? 'to enqueue' : 'enqueued'} (${shownTimes}${more > 0 ? `, and ${more} more` : ''})${s.stopped ? ', stopped: the schedule was paused' : ''}`,
    );
  }
  const idle = r.schedules.filter((s) => s.enqueued === 0).length;
  if (idle > 0) lines.push(`  ${idle} schedule${idle === 1 ? '' : 's'} with nothing to run in the range`);
  for (const f of r.failed) lines.push(`  ${f.id}: failed: ${f.error}`);
  lines.push(
    r.dryRun
      ? `dry run: ${r.enqueued} occurrences of ${r.count} schedules to enqueue; nothing enqueued`
      : `done: ${r.enqueued} occurrences of ${r.count} schedules enqueued (kind backfill, bulk change ${r.changeId})`,
  );
  io.stdout(`${lines.map(shown).join('\n')}\n`);
  return r.failed.length > 0 ? ExitCode.failure : ExitCode.ok;
}

/**
 * `schedule:backfill <id> --from ISO --to ISO [--dry-run] [--json] [--rate N] [--max N] [--overlap P]`:
 * the occurrences of `[from, to)` by the schedule's trigger, in UTC and in its zone, and what becomes
 * of each; enqueued at the bounded rate with a progress bar unless `--dry-run`.
 */
export function backfillCommand(io: CliIO) {
  return async (id: string | undefined, flags: BackfillFlags, command: Command): Promise<number> => {
    if (flags.selector !== undefined && id !== undefined) {
      throw new ConfigError('--selector', `give a schedule id or --selector, not both (got the id "${id}")`);
    }
    if (flags.selector === undefined && id === undefined) {
      throw new ConfigError('<id>', 'give a schedule id, or --selector to pick schedules by their labels');
    }
    const ctx = commandContext(io, command, 'cli');
    const options: BackfillOptions = {
      from: instantFlag(flags.from),
      to: instantFlag(flags.to),
      ...(flags.dryRun && { dryRun: true }),
      ...(flags.overlap !== undefined && { overlap: flags.overlap }),
      ...(flags.only !== undefined && { only: flags.only }),
      ...(flags.rate !== undefined && { ratePerSecond: numericFlag('--rate', flags.rate) as number }),
      ...(flags.max !== undefined && { maxOccurrences: numericFlag('--max', flags.max) as number }),
      ...(flags.data !== undefined && { data: jsonFlag('--data', flags.data).value }),
    };
    const asFlag = (err: unknown): never => {
      if (err instanceof ScheduleOptionsError && FLAG[err.field] !== undefined) {
        throw new ConfigError(FLAG[err.field] as string, err.reason, { cause: err });
      }
      throw err;
    };
    try {
      resolveBackfillOptions(id ?? '(selection)', options); // checked before connecting
    } catch (err) {
      asFlag(err);
    }
    if (id === undefined) {
      const selector = parseSelector(flags.selector, '--selector').text;
      const r = await withManager(ctx, (m) =>
        m
          .select(selector)
          .backfill({ ...options, ...cliChange() })
          .catch(asFlag),
      );
      return printSelectionBackfill(io, r, flags.json);
    }
    return withManager(ctx, async (m) => {
      const run = await m.startBackfill(id, { ...options, ...cliChange() }).catch(asFlag);
      const r = run.result;
      if (flags.json) {
        await run.done;
        io.stdout(`${JSON.stringify(r, null, 2)}\n`);
        return ExitCode.ok;
      }
      const zone = r.timezone ?? 'UTC';
      const lines = [
        `${id}: ${r.occurrences.length} occurrence${r.occurrences.length === 1 ? '' : 's'} in [${new Date(r.from).toISOString()}, ${new Date(r.to).toISOString()}), shown in UTC and ${zone}`,
        '',
      ];
      r.occurrences.forEach((o, i) => {
        lines.push(
          `${String(i + 1).padStart(5)}  ${new Date(o.fireAt).toISOString()}  ${inZone(o.fireAt, zone)}  ${WORDS[o.status]}`,
        );
      });
      lines.push('');
      io.stdout(`${lines.map(shown).join('\n')}\n`);
      if (r.dryRun) {
        io.stdout(`dry run: ${r.enqueued} to enqueue, ${r.skipped} not to run; nothing enqueued\n`);
        return ExitCode.ok;
      }
      const print = progressPrinter(io);
      m.on('backfill', (p) => {
        if (p.scheduleId === id) print(p);
      });
      await run.done;
      if (r.stopped === 'paused') {
        const rest = r.occurrences.filter((o) => o.status === 'stopped').length;
        io.stdout(
          `stopped: the schedule was paused; ${r.enqueued} enqueued before the pause (they run), ${rest} not enqueued (a later backfill may take them)\n`,
        );
        return ExitCode.ok;
      }
      const overridden = flags.data === undefined ? '' : ', each with its data overridden';
      io.stdout(`done: ${r.enqueued} enqueued (kind backfill)${overridden}, ${r.skipped} not run\n`);
      return ExitCode.ok;
    });
  };
}
