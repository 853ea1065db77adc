// Small helpers shared by the built-in triggers; internal to `src/triggers/`.
import { TriggerError } from '../errors/trigger-error.js';

/** Render a value for an error message: `NaN`, `Infinity`, `"text"`, `undefined`. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint' || value === undefined || value === null) {
    return String(value);
  }
  if (value instanceof Date)
    return `Date(${Number.isNaN(value.getTime()) ? 'Invalid' : value.toISOString()})`;
  return typeof value;
}

/** A random offset in `[0, jitterMs]` whole milliseconds from `random()` (clamped into `[0, 1]`). */
export function jitterOffset(jitterMs: number, random: () => number): number {
  if (jitterMs <= 0) return 0;
  const r = random();
  const unit = Number.isFinite(r) ? Math.min(1, Math.max(0, r)) : 0;
  return Math.round(unit * jitterMs);
}

/** An instant given as epoch ms or a `Date`, checked finite; otherwise a `TriggerError` naming `field`. */
export function toEpochMs(value: unknown, trigger: string, field: string): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) {
    throw new TriggerError(
      trigger,
      field,
      `must be a finite epoch-ms number or a valid Date, got ${show(value)}`,
    );
  }
  return ms;
}
