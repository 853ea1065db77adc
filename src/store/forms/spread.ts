import { createHash } from 'node:crypto';
import { z } from 'zod';
import { showValue as show } from './show-value.js';

// Deterministic spread: each occurrence of a schedule with `spread` fires at its nominal time plus an
// offset derived from the schedule's id alone (Jenkins' `H`), so the offset is the same on every
// replica and after every restart, and thousands of schedules aligned on one instant fire spread over
// the window. The nominal time stays the occurrence's identity (job id, record, `why`, backfill).

/** Milliseconds per unit of a spread written as text. */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The longest spread: a week (a longer window spreads nothing a user can see). */
export const MAX_SPREAD_MS = 7 * 86_400_000;

const SPREAD_HELP = 'a duration such as "30s", "10m", "1h" (or whole ms as a number) from 1 ms to 7d';

/** Read a spread: `'10m'`, `'30s'`, `'500ms'`, `'1h'`, `'1d'`, or whole ms as a number. Undefined when unreadable. */
export function parseSpreadMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/i.exec(value);
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[(m[2] as string).toLowerCase() as keyof typeof UNIT_MS];
  return Number.isInteger(ms) ? ms : Math.round(ms);
}

/** The option's rule: a duration, read into whole ms in `[1, MAX_SPREAD_MS]`. */
export const spreadField = z
  .union([z.string(), z.number()], {
    error: (i) => `must be ${SPREAD_HELP}, got ${show(i.input)}`,
  })
  .transform((v, ctx) => {
    const ms = parseSpreadMs(v);
    if (ms === undefined || ms < 1 || ms > MAX_SPREAD_MS) {
      ctx.addIssue({ code: 'custom', message: `must be ${SPREAD_HELP}, got ${show(v)}` });
      return z.NEVER;
    }
    return ms;
  });

/**
 * The offset (ms) of a schedule's occurrences inside its spread window: `[0, spreadMs)`, from the
 * first 48 bits of the SHA-256 of its id. Pure: every replica, every restart, the same answer.
 */
export function spreadOffsetMs(scheduleId: string, spreadMs: number | undefined): number {
  if (spreadMs === undefined || spreadMs <= 0) return 0;
  const h = createHash('sha256').update(scheduleId).digest();
  return Math.floor((h.readUIntBE(0, 6) / 2 ** 48) * spreadMs);
}

/** The instant an occurrence nominally at `fireAt` fires at under a definition's spread. */
export function spreadFireAt(def: { id: string; spreadMs?: number | undefined }, fireAt: number): number {
  return fireAt + spreadOffsetMs(def.id, def.spreadMs);
}

/** A spread (or gap) for messages: the largest unit that writes it whole (`10m`, `90s`, `1500ms`). */
export function formatSpread(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
