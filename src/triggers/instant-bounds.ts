import { TriggerError } from '../errors/trigger-error.js';
import { show } from './show-value.js';
// The range every stored instant and period must fall in (checked where a trigger or a schedule is
// defined, and on every fire time a trigger answers: see checked-next-fire.ts).

/** The earliest instant a schedule may use: the epoch. */
export const MIN_INSTANT_MS = 0;
/** The latest: 9999-12-31T23:59:59.999Z (ISO 8601 stays four-digit; Lua and JS print it the same). */
export const MAX_INSTANT_MS = 253_402_300_799_999;
/** The longest period or jitter, in seconds: 100 years of 365.25 days. */
export const MAX_PERIOD_SECONDS = 3_155_760_000;

/** A number for a message: `1e+20` rather than 21 digits. */
export function showNumber(value: number): string {
  return Number.isFinite(value) && Math.abs(value) >= 1e16 ? value.toExponential() : String(value);
}

const RANGE = `an epoch ms between ${MIN_INSTANT_MS} (1970-01-01T00:00:00.000Z) and ${MAX_INSTANT_MS} (9999-12-31T23:59:59.999Z)`;

/** Why `value` is not a usable instant (finite, in range), or undefined when it is. */
export function instantProblem(value: number): string | undefined {
  if (!Number.isFinite(value)) return `${showNumber(value)} is not a finite number (must be ${RANGE})`;
  if (value < MIN_INSTANT_MS || value > MAX_INSTANT_MS)
    return `${showNumber(value)} is out of range (must be ${RANGE})`;
  return undefined;
}

/** Why `seconds` is not a usable period or jitter (`min` excluded when `open`), or undefined. */
export function periodProblem(seconds: number, min: number, open: boolean): string | undefined {
  if (!Number.isFinite(seconds) || (open ? seconds <= min : seconds < min) || seconds > MAX_PERIOD_SECONDS) {
    return `${showNumber(seconds)} is out of range (must be a number of seconds ${open ? 'greater than' : 'at least'} ${min} and at most ${MAX_PERIOD_SECONDS} (100 years))`;
  }
  return undefined;
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
