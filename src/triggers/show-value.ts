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
