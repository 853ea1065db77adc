/**
 * Partitions: a deployment's schedules spread over P hash tags, so that on a Redis Cluster its
 * schedules, claims and records spread over the masters instead of piling onto one slot.
 *
 * - A schedule's partition is a stable hash of its id (FNV-1a, 32 bits, modulo P).
 * - Partition `i` of P > 1 keys its keys under `{<prefix>:<i>}` (or `{<prefix>:<i>.<n>}`, the first
 *   `n` that works): a tag whose cluster slot lies in the middle of the i-th P-th of the slot space.
 *   A cluster whose masters own equal contiguous slot ranges (what `redis-cli --cluster create` and
 *   managed offerings set up) so holds P/N partitions per master, whatever the prefix.
 * - With P = 1 there is no partition tag: every key is under `{prefix}`, as before partitions.
 */

/** Redis Cluster's hash slots. */
export const SLOTS = 16384;

/**
 * Partitions of a deployment on a Redis Cluster when none is configured: 32 = 10-12 per master on 3
 * (each within 12.5 % of a third), 8 on 4, 5-7 on 6. A power of two: Redis sizes each hash and
 * sorted set's table to a power of two, so 32 partitions of N/32 schedules take the same table memory
 * as one Redis's N (24 took 0.75x or 1.5x of it depending on N: 1.10x per idle schedule at 100,000).
 */
export const DEFAULT_CLUSTER_PARTITIONS = 32;

const CRC16_TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let j = 0; j < 8; j++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    t[i] = c;
  }
  return t;
})();

/** CRC16 (XMODEM), Redis Cluster's key hash. */
export function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  }
  return crc;
}

/** The cluster slot of a key (its hash tag's, when it has a non-empty one), as Redis computes it. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % SLOTS;
  }
  return crc16(key) % SLOTS;
}

/** The partition of a schedule id among `partitions` (FNV-1a of its UTF-8 bytes). */
export function partitionOf(id: string, partitions: number): number {
  if (partitions <= 1) return 0;
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(id, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % partitions;
}

const tags = new Map<string, string>();

/**
 * The hash tag (without braces) of partition `i` of `partitions` (> 1) of a deployment: its slot lies
 * in the middle half of the i-th `partitions`-th of the slot space. Stable: the same for every process.
 */
export function partitionTag(prefix: string, i: number, partitions: number): string {
  const cacheKey = `${prefix}\u0000${i}\u0000${partitions}`;
  const cached = tags.get(cacheKey);
  if (cached !== undefined) return cached;
  const name = prefix.replace(/[{}]/g, '');
  const width = SLOTS / partitions;
  const lo = i * width + width / 4;
  const hi = (i + 1) * width - width / 4;
  let tag = `${name}:${i}`;
  for (let n = 1; n < 1_000_000; n++) {
    const slot = crc16(tag) % SLOTS;
    if (slot >= lo && slot < hi) break;
    tag = `${name}:${i}.${n}`;
  }
  tags.set(cacheKey, tag);
  return tag;
}
