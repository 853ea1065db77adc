/** A value as an error message quotes it: strings in quotes, numbers as written, `undefined`, `a function`. */
export function showValue(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'bigint' || v === undefined) return String(v);
  if (typeof v === 'function') return 'a function';
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'an invalid Date' : v.toISOString();
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
