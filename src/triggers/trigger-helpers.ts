// Small helpers shared by the built-in triggers; internal to `src/triggers/`.

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
