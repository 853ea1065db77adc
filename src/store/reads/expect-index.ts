import type { Redis } from 'ioredis';
import type { Keys } from '../keys/index.js';
import { ScheduleScripts } from '../scripts/index.js';
import { indexOlderDefinitions } from './index-backfill.js';

/** How many definitions one step of a partition's first indexing reads (`HSCAN ... COUNT`). */
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
      if ((await redis.exists(k.expectsIndexed)) === 0)
        await indexOlderDefinitions(redis, k.schedules, 'expect', (ids, last) =>
          scripts.indexExpects(k, ids, last),
        );
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
