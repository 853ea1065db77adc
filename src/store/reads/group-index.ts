import type { Redis } from 'ioredis';
import type { Keys } from '../keys/index.js';
import { ScheduleScripts } from '../scripts/index.js';
import { indexOlderDefinitions } from './index-backfill.js';
import { checkListIndexes } from './name-index.js';

/** A group the schedules name, from the group index (includes/groups). */
export interface IndexedGroup {
  key: string;
  /** The smallest `max` its schedules declare. */
  max: number;
  /** How many schedules name it (any status). */
  schedules: number;
}

/** How many definitions one step of a partition's first indexing reads (`HSCAN ... COUNT`). */

/**
 * Every group the deployment's schedules name, by key, from the group index that `upsert-9` and
 * `remove-13` keep with the definitions: per partition, the set of its group keys, then a count and the
 * smallest `max` of each. So it reads the groups, never every schedule (a million schedules in twenty
 * groups cost twenty reads per partition). A partition's first create marks it indexed; one whose
 * definitions were written before the index existed is indexed first, once (`index-groups-2`, from one
 * scan of its definitions). A partition whose queue indexes do not count its definitions (a writer that
 * kept no index created or removed schedules since) is repaired first, its groups too (`checkListIndexes`).
 */
export async function indexedGroups(redis: Redis, keys: Keys): Promise<IndexedGroup[]> {
  const scripts = new ScheduleScripts(redis);
  // a writer that kept no index (an earlier release) created or removed schedules: the partitions it
  // wrote to are re-indexed, groups included (their counts tell: one `list-counts-1` per partition)
  await checkListIndexes(redis, keys);
  const parts = await Promise.all(
    keys.all().map(async (k) => {
      if ((await redis.exists(k.groupsIndexed)) === 0)
        await indexOlderDefinitions(redis, k.schedules, 'group', (ids, last) =>
          scripts.indexGroups(k, ids, last),
        );
      return partitionGroups(redis, k);
    }),
  );
  const byKey = new Map<string, IndexedGroup>();
  for (const g of parts.flat()) {
    const seen = byKey.get(g.key);
    byKey.set(
      g.key,
      seen ? { key: g.key, max: Math.min(seen.max, g.max), schedules: seen.schedules + g.schedules } : g,
    );
  }
  return [...byKey.values()].sort((a, b) => a.key.localeCompare(b.key));
}

/** One partition's groups: its group keys, then each one's count and smallest `max` (one pipeline: one slot). */
async function partitionGroups(redis: Redis, k: Keys): Promise<IndexedGroup[]> {
  const names = await redis.smembers(k.groupKeys);
  if (names.length === 0) return [];
  const pipe = redis.pipeline();
  for (const key of names) {
    pipe.zcard(k.groupMembers(key));
    pipe.zrange(k.groupMembers(key), '0', '0', 'WITHSCORES');
  }
  const res = (await pipe.exec()) ?? [];
  const out: IndexedGroup[] = [];
  names.forEach((key, i) => {
    const schedules = Number(res[2 * i]?.[1] ?? 0);
    const first = (res[2 * i + 1]?.[1] ?? []) as string[];
    if (schedules > 0 && first[1] !== undefined) out.push({ key, max: Number(first[1]), schedules });
  });
  return out;
}
