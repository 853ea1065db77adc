/** Milliseconds per unit of a written duration. */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/**
 * The one rule for a duration a person writes (CLI flags, the dashboard API): a decimal number with
 * a unit, `500ms`, `30s`, `5m`, `24h`, `7d`, `1w`; a bare number is seconds (`90` = `90s`, never
 * 90 ms). Returns milliseconds, or undefined for anything else (negative, blank, another unit).
 */
export function parseDurationMs(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h|d|w)?\s*$/i.exec(text);
  if (!m) return undefined;
  const unit = (m[2] ?? 's').toLowerCase() as keyof typeof UNIT_MS;
  return Math.round(Number(m[1]) * UNIT_MS[unit]);
}

/** How a duration is written, for error messages. */
export const DURATION_HELP = 'a number with a unit (500ms, 30s, 5m, 24h, 7d; a bare number is seconds)';
