import { DateTime } from 'luxon';
import { ConfigError } from '../errors/index.js';
import { instantProblem } from '../triggers/index.js';

/**
 * The instant a flag gives (`--at`, `--from`): an ISO 8601 date-time (its own offset kept; UTC when it
 * has none) or epoch ms (before 1970 too), inside the range of instants a schedule may use. Every
 * command reads an instant flag through this one parser, with the same messages.
 */
export function instantFlag(flag: string, text: string): number {
  const trimmed = text.trim();
  let t: number;
  if (/^-?\d+$/.test(trimmed)) t = Number(trimmed);
  else {
    const dt = DateTime.fromISO(trimmed, { setZone: true, zone: 'utc' });
    if (!dt.isValid) throw new ConfigError(flag, `expected an ISO 8601 instant or epoch ms (got "${text}")`);
    t = dt.toMillis();
  }
  const problem = instantProblem(t);
  if (problem !== undefined) throw new ConfigError(flag, `"${text}": ${problem}`);
  return t;
}
