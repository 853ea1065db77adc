// Small helpers shared by the built-in triggers; internal to `src/triggers/`.
import { TriggerError } from '../errors/trigger-error.js';
import { instantProblem, MAX_INSTANT_MS, showNumber } from './instant-bounds.js';

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

/**
 * An instant given as epoch ms or a `Date`, checked finite and in range (see `instant-bounds.ts`),
 * as a whole millisecond; otherwise a `TriggerError` naming `field`. An `instant` (a fire time) is
 * rounded up (never before the instant given); an `anchor` (only the phase of a grid) may be
 * negative, down to minus the latest instant, and is rounded to the nearest.
 */
export function toEpochMs(
  value: unknown,
  trigger: string,
  field: string,
  kind: 'instant' | 'anchor',
): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) {
    throw new TriggerError(
      trigger,
      field,
      `must be a finite epoch-ms number or a valid Date, got ${show(value)}`,
    );
  }
  if (kind === 'anchor') {
    if (Math.abs(ms) > MAX_INSTANT_MS) {
      throw new TriggerError(
        trigger,
        field,
        `${showNumber(ms)} is out of range (must be an epoch ms between -${MAX_INSTANT_MS} and ${MAX_INSTANT_MS})`,
      );
    }
    return Math.round(ms);
  }
  const problem = instantProblem(ms);
  if (problem !== undefined) throw new TriggerError(trigger, field, problem);
  return Math.ceil(ms);
}
