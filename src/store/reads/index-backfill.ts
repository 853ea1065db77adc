import type { Redis } from 'ioredis';

/** Definitions read per `HSCAN` step of a one-time index pass. */
const INDEX_SCAN_COUNT = 1000;

/**
 * Index a partition's definitions written before an index existed (the group index, the expectations
 * index): scan its `schedules` hash, and hand each step's ids whose definition names `field` (its JSON
 * key, as the compact form writes it) to `index`, whose last call (`last` true, maybe with no ids)
 * marks the partition indexed. Each step is one atomic script call, by id.
 */
export async function indexOlderDefinitions(
  redis: Redis,
  schedules: string,
  field: string,
  index: (ids: string[], last: boolean) => Promise<unknown>,
): Promise<void> {
  const marker = `"${field}"`;
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(schedules, cursor, 'COUNT', INDEX_SCAN_COUNT);
    cursor = next;
    const ids: string[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      if (flat[i + 1]!.includes(marker)) ids.push(flat[i]!);
    }
    if (ids.length > 0 || cursor === '0') await index(ids, cursor === '0');
  } while (cursor !== '0');
}
