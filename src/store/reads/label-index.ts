import type { Redis } from 'ioredis';
import type { Requirement, Selector } from '../forms/index.js';
import type { Keys } from '../keys/index.js';

/**
 * The ids of the stored schedules a selector picks, read from the label index (`keys.labelSet`, written
 * by upsert-9 and remove-13): per partition, the requirements that need a label (`=`, `in`, `key`) are
 * intersected, starting from the smallest; the others (`!=`, `notin`, `!key`) are taken out. A selector
 * of only the latter starts from every schedule of the partition (its `schedules` hash's fields).
 * Sorted by id.
 */
export async function selectIds(redis: Redis, keys: Keys, selector: Selector): Promise<string[]> {
  const parts = await Promise.all(keys.all().map((k) => selectInPartition(redis, k, selector)));
  return parts.flat().sort();
}

async function selectInPartition(redis: Redis, k: Keys, selector: Selector): Promise<string[]> {
  const positive = selector.requirements.filter((r) => r.op === 'eq' || r.op === 'in' || r.op === 'exists');
  const negative = selector.requirements.filter((r) => !positive.includes(r));
  let ids: Set<string>;
  if (positive.length === 0) {
    ids = new Set(await redis.hkeys(k.schedules));
  } else {
    const sets = await Promise.all(positive.map((r) => membersOf(redis, k, r)));
    sets.sort((a, b) => a.length - b.length);
    ids = new Set(sets[0]);
    for (const other of sets.slice(1)) {
      if (ids.size === 0) break;
      const keep = new Set(other);
      for (const id of ids) if (!keep.has(id)) ids.delete(id);
    }
  }
  for (const r of negative) {
    if (ids.size === 0) break;
    for (const id of await membersOf(redis, k, r)) ids.delete(id);
  }
  return [...ids];
}

/** The ids that carry the label a requirement names: with one of its values, or with any value (`key`, `!key`). */
async function membersOf(redis: Redis, k: Keys, r: Requirement): Promise<string[]> {
  const values =
    r.op === 'exists' || r.op === 'absent' ? await redis.smembers(k.labelValues(r.key)) : r.values;
  if (values.length === 0) return [];
  if (values.length === 1) return redis.smembers(k.labelSet(r.key, values[0]!));
  return redis.sunion(...values.map((v) => k.labelSet(r.key, v)));
}
