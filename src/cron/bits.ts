/**
 * Bit tricks over the masks that cron fields compile to. Values 0-31 live in one 32-bit mask; the
 * 60 values of seconds and minutes in a pair (`lo` = 0-31, `hi` = 32-59). Each lookup is a few bit
 * operations: no loop over values.
 */

/** The lowest set bit of `mask` at position `from` or above, or -1. */
export function nextBit(mask: number, from: number): number {
  if (from > 31) return -1;
  const m = mask & (-1 << from);
  return m === 0 ? -1 : 31 - Math.clz32(m & -m);
}

/** The highest set bit of `mask` at position `from` or below, or -1. */
export function prevBit(mask: number, from: number): number {
  if (from < 0) return -1;
  const m = from >= 31 ? mask : mask & ((1 << (from + 1)) - 1);
  return m === 0 ? -1 : 31 - Math.clz32(m);
}

/** `nextBit` over a 60-bit mask held as `lo` (bits 0-31) and `hi` (bits 32-59). */
export function nextBit60(lo: number, hi: number, from: number): number {
  if (from < 32) {
    const b = nextBit(lo, from);
    if (b >= 0) return b;
    const h = nextBit(hi, 0);
    return h < 0 ? -1 : h + 32;
  }
  const h = nextBit(hi, from - 32);
  return h < 0 ? -1 : h + 32;
}

/** `prevBit` over a 60-bit mask held as `lo` and `hi`. */
export function prevBit60(lo: number, hi: number, from: number): number {
  if (from >= 32) {
    const h = prevBit(hi, from - 32);
    if (h >= 0) return h + 32;
    return prevBit(lo, 31);
  }
  return prevBit(lo, from);
}

/** The 32-bit mask with bits `from`..`to` set (0 <= from <= to <= 31). */
export function bitRange(from: number, to: number): number {
  return ((to === 31 ? -1 : (1 << (to + 1)) - 1) & (-1 << from)) | 0;
}

/** How many bits of a 60-bit mask are set. */
export function popCount60(lo: number, hi: number): number {
  return popCount(lo) + popCount(hi);
}

export function popCount(mask: number): number {
  let m = mask - ((mask >>> 1) & 0x55555555);
  m = (m & 0x33333333) + ((m >>> 2) & 0x33333333);
  return (((m + (m >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
