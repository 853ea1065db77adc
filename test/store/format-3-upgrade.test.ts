// The step from data format 2 to 3 (`FORMAT_UPGRADES[2]`): format 2 kept, per partition, an index of
// every schedule by name (`names`) beside the queue indexes; format 3 keeps the queue indexes alone (the
// list of every schedule merges them). On a deployment as format 2 left it (one and four partitions;
// one partition written before the queue and status indexes existed, another whose counts are off), a
// reader of this release reads it as it is (the same pages, `names` left alone); the first writer
// upgrades it: the queue and status indexes completed where they were not, every `names` deleted, every
// list read the same as before; the step run again changes nothing. A `names` rebuilt afterwards (a list
// read by a process of format 2 still running through the roll repairs it) goes at this release's next
// list read; on format 2 the same read leaves it.
import { afterEach, describe, expect, it } from 'vitest';
import type { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { checkDataFormat, FORMAT_UPGRADES } from '../../src/store/deployment/data-format.js';
import { keys as keysOf } from '../../src/store/keys/keys.js';
import { testEnv } from '../scheduler/helpers.js';

let env: ReturnType<typeof testEnv>;
afterEach(async () => {
  // the partitions' keys (`{<prefix>:<i>.<n>}`) too
  const leftover = await env.redis.keys(`{${env.prefix}:*`);
  if (leftover.length > 0) await env.redis.unlink(...leftover);
  await env.cleanup();
});

// enough for several pages of every list (a walk of 37 a page, filtered pages capped at 20, an offset of 40)
const N = 150;

/** What every list read answers: pages by name (offset and cursor), filtered pages, counts, queues. */
async function lists(m: SchedulerManager) {
  const byName = await m.listPage({ limit: N + 10 });
  const walked: string[] = [];
  for (let cursor: string | undefined = '0'; cursor !== undefined; ) {
    const page = await m.listPage({ order: 'name', cursor, limit: 37 });
    walked.push(...page.items.map((j) => j.id));
    cursor = page.cursor;
  }
  const filtered = await Promise.all([
    m.listPage({ queue: 'fq2', limit: 20 }),
    m.listPage({ status: 'paused', limit: 20 }),
    m.listPage({ status: 'active', offset: 40, limit: 20 }),
    m.listPage({ search: 'fq3', limit: 20 }),
    m.listPage({ search: 'name-01', limit: 20 }),
  ]);
  return {
    byName: byName.items.map((j) => j.id),
    total: byName.total,
    walked,
    filtered: filtered.map((p) => ({ total: p.total, ids: p.items.map((j) => j.id) })),
    stats: await m.stats(),
  };
}

describe('data format 2 to 3: the index of every schedule by name goes', () => {
  for (const partitions of [1, 4]) {
    it(`${partitions} partition(s): read as it is, upgraded by the first writer, every list the same`, async () => {
      env = testEnv(`fmt3-${partitions}`);
      const k = keysOf(env.prefix, partitions);
      const m = env.manager({ role: 'client', auditLimit: 0, partitions });
      const items = Array.from({ length: N }, (_, i) => ({
        target: { name: `name-${String((i * 7) % 50).padStart(2, '0')}`, queue: `fq${i % 5}` },
        trigger: { type: 'interval' as const, seconds: 3600 },
        options: { id: `s${i}` },
      }));
      const made = await m.scheduleMany(items);
      expect(made.failed).toEqual([]);
      await Promise.all(Array.from({ length: Math.ceil(N / 7) }, (_, i) => m.pause(`s${i * 7}`)));
      const expected = await lists(m);
      expect(expected.byName).toHaveLength(N);

      // as format 2 left it: `names` in each partition, every schedule of it once
      for (const p of k.all()) {
        for (const queue of await env.redis.smembers(p.queues)) {
          const members = await env.redis.zrange(p.queueNames(queue), '0', '-1');
          if (members.length > 0) await env.redis.zadd(p.names, ...members.flatMap((mb) => ['0', mb]));
        }
      }
      // partition 0 written before the queue and status indexes (format 2 read it from `names` alone)
      const p0 = k.partition(0);
      const queues0 = await env.redis.smembers(p0.queues);
      await env.redis.del(
        p0.queues,
        p0.listsIndexed,
        ...queues0.map((q) => p0.queueNames(q)),
        ...(['paused', 'completed', 'errored'] as const).map((s) => p0.statusNames(s)),
      );
      await env.redis.set(k.dataFormat, '2');
      const namesLeft = async () =>
        (await Promise.all(k.all().map((p) => env.redis.exists(p.names)))).reduce((a, b) => a + b, 0);
      expect(await namesLeft()).toBe(partitions);

      // a reader of this release reads format 2 as it is (indexing the partition that had none)
      const reader = env.manager({ role: 'client', partitions });
      expect(await lists(reader)).toEqual(expected);
      expect(await env.redis.get(k.dataFormat)).toBe('2');
      expect(await namesLeft()).toBe(partitions);

      // the first writer upgrades: every `names` gone, every list the same
      await env.redis.del(p0.listsIndexed); // and the partition unindexed again, for the step to index
      expect(await checkDataFormat(env.redis, k, true)).toBe(3);
      expect(await env.redis.get(k.dataFormat)).toBe('3');
      expect(await namesLeft()).toBe(0);
      expect(await env.redis.get(p0.listsIndexed)).toBe('1');
      expect(await lists(reader)).toEqual(expected);

      // the step again: nothing to index, nothing to delete
      const snapshot = async () =>
        Promise.all(
          k
            .all()
            .flatMap((p) => [
              env.redis.smembers(p.queues).then((q) => q.sort()),
              env.redis.zcard(p.statusNames('paused')),
              env.redis.get(p.listsIndexed),
            ]),
        );
      const once = await snapshot();
      await FORMAT_UPGRADES[2]?.(env.redis, k);
      expect(await snapshot()).toEqual(once);

      // a `names` rebuilt by a process of format 2 still running goes at the next list read
      const last = k.partition(partitions - 1);
      await env.redis.zadd(last.names, 0, 'name-00\0s0');
      await reader.listPage({ limit: 5 });
      expect(await namesLeft()).toBe(0);
      // on format 2 the same read leaves it (that process may still read it)
      await env.redis.set(k.dataFormat, '2');
      await env.redis.zadd(last.names, 0, 'name-00\0s0');
      await reader.listPage({ limit: 5 });
      expect(await namesLeft()).toBe(1);
      await reader.close();
      await m.close();
    }, 120_000);
  }
});
