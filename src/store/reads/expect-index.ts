import type { Redis } from 'ioredis';
import type { Keys } from '../keys/index.js';
import { ScheduleScripts } from '../scripts/index.js';

/** How many definitions one step of a partition's first indexing reads (`HSCAN ... COUNT`). */
const INDEX_SCAN_COUNT = 1000;
/** How many definitions one `HMGET` reads. */
const READ_CHUNK = 500;

/**
 * The stored definitions (id, JSON) of the schedules whose definition has `expect`, every partition's,
 * from the expectations index that `upsert-9` and `remove-13` keep with the definitions: per partition,
 * the index's ids, then their definitions. So the expectations watch reads the schedules that expect
 * something, never every definition (5,000 schedules of which 10 expect something cost one set of 10
 * and 10 definitions). A partition's first create marks it indexed; one whose definitions were written
 * before the index existed is indexed first, once (`index-expects-2`, from one scan of its definitions).
 */
export async function expectingDefinitions(redis: Redis, keys: Keys): Promise<[string, string][]> {
  const scripts = new ScheduleScripts(redis);
  const parts = await Promise.all(
    keys.all().map(async (k) => {
      if ((await redis.exists(k.expectsIndexed)) === 0) await indexPartition(redis, scripts, k);
      return partitionDefinitions(redis, k);
    }),
  );
  return parts.flat();
}

/** One partition's indexed ids and their definitions (a definition removed meanwhile is left out). */
async function partitionDefinitions(redis: Redis, k: Keys): Promise<[string, string][]> {
  const ids = (await redis.smembers(k.expectIndex)).sort();
  const out: [string, string][] = [];
  for (let at = 0; at < ids.length; at += READ_CHUNK) {
    const chunk = ids.slice(at, at + READ_CHUNK);
    const defs = await redis.hmget(k.schedules, ...chunk);
    chunk.forEach((id, i) => {
      const json = defs[i];
      if (json) out.push([id, json]);
    });
  }
  return out;
}

/** Index a partition's definitions written before the expectations index existed (each step atomic, by id). */
async function indexPartition(redis: Redis, scripts: ScheduleScripts, k: Keys): Promise<void> {
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(k.schedules, cursor, 'COUNT', INDEX_SCAN_COUNT);
    cursor = next;
    const ids: string[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      if (flat[i + 1]!.includes('"expect"')) ids.push(flat[i]!);
    }
    if (ids.length > 0 || cursor === '0') await scripts.indexExpects(k, ids, cursor === '0');
  } while (cursor !== '0');
}
