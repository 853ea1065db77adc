import type { Command } from 'commander';
import { ConfigError } from '../../errors/index.js';
import type { WhyReport } from '../../insight/index.js';
import { agenda, DURATION_HELP, parseWindow, whyDidntItRun } from '../../insight/index.js';
import { parseSelector } from '../../store/index.js';
import { MAX_PERIOD_SECONDS } from '../../triggers/index.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { formatTable } from '../format-table.js';
import { instantFlag } from '../instant-flag.js';
import { numericFlag } from '../numeric-flag.js';
import { shown } from '../terminal-text.js';
import { withManager } from './admin.js';

/** The longest agenda window: 100 years, the longest period a trigger may have. */
const MAX_WINDOW_MS = MAX_PERIOD_SECONDS * 1000;

/** `schedule:why <id> [--at ISO] [--json]`: exit 0 with the answer, 4 when there is no such schedule. */
export function whyCommand(io: CliIO) {
  return async (id: string, options: { at?: string; json?: boolean }, command: Command): Promise<number> => {
    const at = options.at === undefined ? undefined : instantFlag('--at', options.at);
    const ctx = commandContext(io, command, 'cli');
    const report = await withManager(ctx, (m) => whyDidntItRun(m, id, at === undefined ? {} : { at }));
    io.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatWhy(report));
    return ExitCode.ok;
  };
}

/** The report as text: the chain, one line per link (✓ / ✗), then the answer; each line `shown`. */
export function formatWhy(r: WhyReport): string {
  const lines = [
    `${r.scheduleId} (job name ${r.name}, queue ${r.queue}), at or before ${new Date(r.at).toISOString()}:`,
  ];
  for (const f of r.facts) lines.push(`  ${f.ok ? '✓' : '✗'} ${f.link.padEnd(8)} ${f.text}`);
  lines.push('', `${r.ran ? 'ran' : r.cause === 'running' ? 'running' : 'did not run'}: ${r.summary}`);
  return `${lines.map(shown).join('\n')}\n`;
}

/** `agenda [--next 24h] [--queue Q] [--limit N] [--json]`. */
export function agendaCommand(io: CliIO) {
  return async (
    options: { next?: string; queue?: string; selector?: string; limit?: string; json?: boolean },
    command: Command,
  ): Promise<number> => {
    const nextMs = parseWindow(options.next ?? '24h');
    if (nextMs === undefined) {
      throw new ConfigError('--next', `expected ${DURATION_HELP}, more than 0 (got "${options.next}")`);
    }
    if (nextMs > MAX_WINDOW_MS) {
      throw new ConfigError(
        '--next',
        `"${options.next}" is longer than 100 years (36525d), the longest window`,
      );
    }
    const limit = numericFlag('--limit', options.limit) ?? 1000;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new ConfigError('--limit', `expected a whole number from 1 (got "${options.limit}")`);
    }
    if (options.selector !== undefined) parseSelector(options.selector, '--selector');
    const ctx = commandContext(io, command, 'cli');
    const only = {
      ...(options.queue !== undefined && { queue: options.queue }),
      ...(options.selector !== undefined && { selector: options.selector }),
    };
    const a = await withManager(ctx, (m) => agenda(m, { nextMs, limit, ...only }));
    const total = Object.values(a.perQueue).reduce((x, y) => x + y, 0);
    const cut = `the first ${a.entries.length} of ${total} fires shown; --limit ${total} shows them all`;
    // said on stderr too, so that neither a long table nor --json hides the cut
    if (a.truncated) ctx.note(`agenda: ${cut}`);
    if (options.json) {
      io.stdout(`${JSON.stringify(a, null, 2)}\n`);
      return ExitCode.ok;
    }
    const window = `${new Date(a.from).toISOString()} to ${new Date(a.to).toISOString()}`;
    if (a.entries.length === 0) {
      io.stdout(`nothing fires from ${window}${options.queue ? ` on queue ${shown(options.queue)}` : ''}\n`);
    } else {
      const rows = a.entries.map((e) => [
        new Date(e.at).toISOString(),
        e.zone === 'UTC' ? '' : `${e.local} ${e.zone}`,
        e.queue,
        e.scheduleId === e.name ? e.scheduleId : `${e.scheduleId} (${e.name})`,
        e.jitterMs ? `+ up to ${e.jitterMs / 1000} s jitter` : '',
      ]);
      io.stdout(`${formatTable(['UTC', 'LOCAL', 'QUEUE', 'SCHEDULE', ''], rows)}\n`);
      const queues = Object.entries(a.perQueue)
        .map(([q, n]) => `${q} ${n}`)
        .join(', ');
      io.stdout(
        `\n${total} fire${total === 1 ? '' : 's'} from ${window}${queues ? ` (${shown(queues)})` : ''}\n`,
      );
      if (a.truncated) io.stdout(`${cut}\n`);
      const burst = a.busiestMinute;
      if (burst && burst.count > 1) {
        io.stdout(
          `busiest minute: ${new Date(burst.at).toISOString().slice(0, 16)}Z, ${burst.count} fires\n`,
        );
      }
    }
    if (a.unknown.length > 0) {
      io.stdout(`not shown (custom triggers defined in code only): ${shown(a.unknown.join(', '))}\n`);
    }
    return ExitCode.ok;
  };
}
