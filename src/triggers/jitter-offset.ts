/** A random offset in `[0, jitterMs]` whole milliseconds from `random()` (clamped into `[0, 1]`). */
export function jitterOffset(jitterMs: number, random: () => number): number {
  if (jitterMs <= 0) return 0;
  const r = random();
  const unit = Number.isFinite(r) ? Math.min(1, Math.max(0, r)) : 0;
  return Math.round(unit * jitterMs);
}
