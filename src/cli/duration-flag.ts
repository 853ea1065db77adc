import { ConfigError } from '../errors/index.js';
import { DURATION_HELP, parseDurationMs } from '../insight/index.js';

/**
 * A duration flag (`--every`, `--jitter`, `--next`) read by the one duration rule: a number with a
 * unit, a bare number being seconds. Returns seconds (what triggers take); anything else is refused
 * naming the flag.
 */
export function durationFlagSeconds(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDurationMs(text);
  if (ms === undefined)
    throw new ConfigError(flag, `expected ${DURATION_HELP} (got ${JSON.stringify(text)})`);
  return ms / 1000;
}
