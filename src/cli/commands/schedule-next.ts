import { DateTime } from 'luxon';
import { CronParser, describeCron } from '../../cron/index.js';
import { instantFlag } from '../instant-flag.js';
import { shown } from '../terminal-text.js';

/** Options of `bullbeat schedule:next`. */
export interface ScheduleNextOptions {
  /** The IANA zone the expression is read in; default `UTC`. */
  tz?: string;
  /** How many fire times to show; default 5. */
  count?: number;
  /** Preview from this instant instead of now (ISO 8601 or epoch ms). */
  from?: string;
  /** Print JSON instead of a table. Default false. */
  json?: boolean;
}

/** `schedule:next <expression>`: the expression in words and its next fire times, as instants and in its zone. */
export function scheduleNext(
  expression: string,
  options: ScheduleNextOptions,
  now: number,
  write: (text: string) => void,
): void {
  const count = options.count ?? 5;
  const parser = new CronParser(expression, { timezone: options.tz ?? 'UTC' });
  const from = options.from === undefined ? now : instantFlag('--from', options.from);
  const times = parser.nextN(count, from);
  const words = describeCron(expression, { timezone: parser.timezone });
  const rows = times.map((t) => {
    const local = DateTime.fromMillis(t, { zone: parser.timezone });
    return {
      at: t,
      iso: new Date(t).toISOString(),
      local: local.toISO({ suppressMilliseconds: true }) ?? '',
      display: local.toFormat('ccc yyyy-MM-dd HH:mm:ss ZZZZ (ZZ)'),
    };
  });
  if (options.json) {
    write(
      `${JSON.stringify({ expression, timezone: parser.timezone, description: words, from, next: rows.map(({ display: _, ...r }) => r) }, null, 2)}\n`,
    );
    return;
  }
  const lines = [words, ''];
  if (rows.length === 0) lines.push('never fires after the given instant');
  rows.forEach((r, i) => {
    lines.push(`${String(i + 1).padStart(3)}  ${r.iso}  ${r.display}`);
  });
  write(`${lines.map(shown).join('\n')}\n`);
}
