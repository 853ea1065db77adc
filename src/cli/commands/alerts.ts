import type { Command } from 'commander';
import { internalsOf } from '../../scheduler/index.js';
import { AlertStore, type AlertsReport, type Delivery, parseSelector } from '../../store/index.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { formatTable, shortInstant } from '../format-table.js';
import { shown } from '../terminal-text.js';
import { withManager } from './admin.js';

/**
 * `bullbeat alerts [--open] [--selector S] [--json] [--limit n]`: incidents, newest first, with their
 * deliveries; with a selector, those of the schedules whose labels match it.
 */
export function alertsCommand(io: CliIO) {
  return async (
    options: { open?: boolean; json?: boolean; limit?: number; selector?: string },
    command: Command,
  ): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const selector =
      options.selector === undefined ? undefined : parseSelector(options.selector, '--selector').text;
    const report = await withManager(ctx, async (m) =>
      new AlertStore(internalsOf(m).redis, internalsOf(m).prefix).report({
        ...(options.open && { open: true }),
        limit: options.limit ?? 50,
        ...(selector !== undefined && { scheduleIds: new Set(await m.select(selector).ids()) }),
      }),
    );
    if (options.json) {
      io.stdout(`${JSON.stringify(report, null, 2)}\n`);
      return ExitCode.ok;
    }
    io.stdout(`${textOf(report, options.open === true)}\n`);
    return ExitCode.ok;
  };
}

function deliveryWords(ds: readonly Delivery[]): string {
  const byNotifier = new Map<string, string[]>();
  for (const d of ds) {
    const word =
      d.status === 'sent'
        ? `${d.event} sent`
        : d.status === 'failed'
          ? `${d.event} FAILED`
          : `${d.event} ${d.status}${d.attempts > 0 ? ` (${d.attempts} tries)` : ''}`;
    byNotifier.set(d.notifier, [...(byNotifier.get(d.notifier) ?? []), word]);
  }
  return [...byNotifier].map(([n, w]) => `${n}: ${w.join(', ')}`).join('; ') || '-';
}

function textOf(report: AlertsReport, open: boolean): string {
  if (report.incidents.length === 0) return open ? 'no open incident' : 'no incident';
  const table = formatTable(
    ['id', 'status', 'cause', 'schedule', 'occurrence', 'opened', 'resolved', 'deliveries'],
    report.incidents.map((i) => [
      i.id,
      i.status,
      i.cause,
      i.scheduleId,
      shortInstant(i.occurrence),
      shortInstant(i.openedAt),
      shortInstant(i.resolvedAt),
      deliveryWords(i.deliveries),
    ]),
  );
  const whys = report.incidents.map((i) => `${i.id}  why: ${shown(i.why)}`).join('\n');
  return `${table}\n\n${whys}\noutbox: ${report.outbox} waiting`;
}
