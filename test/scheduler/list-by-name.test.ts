// The list by name, paged from the queue indexes (includes/names) kept with the definitions: a walk with
// `order: 'name'` over a few thousand schedules (names shared by many, so the id breaks ties; one and
// four partitions) is complete, ordered, without duplicates, and each page reads at most `limit` index
// entries per partition, never the definitions or states of the whole list (commands counted on the
// manager's own client). Schedules written by a writer that kept no index (an earlier release: the
// definition, state and due entry alone) are listed too, and a rename by such a writer is repaired.
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { IntervalTrigger } from '../../src/index.js';
import { internalsOf, type ScheduleManyItem } from '../../src/scheduler/index.js';
import type { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { testEnv } from './helpers.js';

let env: ReturnType<typeof testEnv>;
afterEach(async () => {
  await env.cleanup();
});

const N = 3000;
// 12 pages of 3,000: each crosses names shared by several schedules
const LIMIT = 250;
// 300 names for 3,000 schedules; a few beyond ASCII, where Redis's byte order is the order
const nameOf = (i: number) =>
  i % 50 === 0 ? `été-${i % 7}` : `report-${String((i * 7919) % 300).padStart(3, '0')}`;

function items(queues = 1): ScheduleManyItem[] {
  return Array.from({ length: N }, (_, i) => ({
    target: { name: nameOf(i), ...(queues > 1 && { queue: `lq${(i * 31) % queues}` }) },
    trigger: new IntervalTrigger(3600),
    options: { id: `s${i}` },
  }));
}

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Every command the client sends (pipelines included), with the size of each array reply. */
function countCommands(redis: Redis) {
  const log: { name: string; key: string; replyLength: number }[] = [];
  const send = redis.sendCommand.bind(redis);
  (redis as unknown as { sendCommand: typeof send }).sendCommand = ((cmd, ...rest) => {
    const entry = { name: cmd.name.toLowerCase(), key: String(cmd.args[0] ?? ''), replyLength: 0 };
    log.push(entry);
    cmd.promise.then(
      (r: unknown) => {
        if (Array.isArray(r)) entry.replyLength = r.length;
      },
      () => undefined,
    );
    return send(cmd, ...rest);
  }) as typeof send;
  return log;
}

async function walk(m: SchedulerManager) {
  const pages: { ids: string[]; names: string[] }[] = [];
  let cursor: string | undefined = '0';
  while (cursor !== undefined) {
    const page = await m.listPage({ order: 'name', cursor, limit: LIMIT });
    pages.push({ ids: page.items.map((j) => j.id), names: page.items.map((j) => j.def.name) });
    cursor = page.cursor;
  }
  return pages;
}

describe('list by name from the name index', () => {
  for (const partitions of [1, 4]) {
    it(`${N} schedules, ${partitions} partition(s): pages complete, ordered, without duplicates, each reading a bounded number of entries`, async () => {
      env = testEnv(`list-by-name-${partitions}`);
      const m = env.manager({ role: 'client', auditLimit: 0, partitions });
      await m.scheduleMany(items());
      const log = countCommands(internalsOf(m).redis);

      const pages = await walk(m);
      const ids = pages.flatMap((p) => p.ids);
      expect(new Set(ids).size).toBe(ids.length); // no duplicates
      expect(ids.length).toBe(N); // complete
      expect(new Set(ids)).toEqual(new Set(Array.from({ length: N }, (_, i) => `s${i}`)));
      const keys = pages.flatMap((p) => p.ids.map((id, i) => `${p.names[i]}\0${id}`));
      expect(keys).toEqual([...keys].sort(byBytes)); // by name, then id
      for (const p of pages.slice(0, -1)) expect(p.ids.length).toBe(LIMIT);

      // what a page read, per partition: its counts (list-counts-1) and its queue index's first LIMIT
      // entries (list-heads-1: the share, the queue, a count, the entries); no whole-list read
      const scripts = log.filter((c) => c.name === 'evalsha');
      expect(scripts.length).toBe(2 * pages.length * partitions);
      for (const r of scripts) expect(r.replyLength).toBeLessThanOrEqual(3 + LIMIT);
      for (const r of log.filter((c) => c.name === 'zrangebylex'))
        expect(r.replyLength).toBeLessThanOrEqual(LIMIT);
      const whole = log.filter(
        (c) =>
          (['hgetall', 'hkeys', 'hvals', 'hscan'].includes(c.name) &&
            (c.key.endsWith(':schedules') || c.key.endsWith(':state'))) ||
          c.name === 'zscan' ||
          (c.name === 'zrange' && c.key.endsWith(':names')),
      );
      expect(whole).toEqual([]);
      const hmget = log.filter((c) => c.name === 'hmget');
      for (const c of hmget) expect(c.replyLength).toBeLessThanOrEqual(LIMIT);

      // a page by offset (no cursor, no filter) reads up to its end per partition, and is the same slice
      log.length = 0;
      const at = await m.listPage({ offset: 2000, limit: 50 });
      expect(at.total).toBe(N);
      expect(at.items.map((j) => j.id)).toEqual(ids.slice(2000, 2050));
      for (const r of log.filter((c) => ['zrangebylex', 'evalsha'].includes(c.name)))
        expect(r.replyLength).toBeLessThanOrEqual(3 + 2050);
      expect(
        log.filter(
          (c) =>
            ['hkeys', 'hscan', 'zscan'].includes(c.name) ||
            (c.key.endsWith(':schedules') && c.name === 'hgetall'),
        ),
      ).toEqual([]);
    }, 120_000);
  }

  // the list of every schedule merges the partition's queue indexes (each schedule is in one)
  for (const [partitions, queues] of [
    [1, 40],
    [3, 200],
  ] as const) {
    it(`${N} schedules on ${queues} queues, ${partitions} partition(s): the merged pages are complete, ordered, each read bounded`, async () => {
      env = testEnv(`list-by-name-q${queues}`);
      const m = env.manager({ role: 'client', auditLimit: 0, partitions });
      await m.scheduleMany(items(queues));
      const log = countCommands(internalsOf(m).redis);
      const pages = await walk(m);
      const ids = pages.flatMap((p) => p.ids);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(N);
      const keys = pages.flatMap((p) => p.ids.map((id, i) => `${p.names[i]}\0${id}`));
      expect(keys).toEqual([...keys].sort(byBytes));
      for (const p of pages.slice(0, -1)) expect(p.ids.length).toBe(LIMIT);
      // what the walk read: each page at most a few times its size per partition, plus a member or two
      // per queue (a lane's first chunk), never the whole list
      const read = log
        .filter((c) => ['zrangebylex', 'evalsha'].includes(c.name))
        .reduce((a, c) => a + c.replyLength, 0);
      expect(read).toBeLessThanOrEqual(pages.length * partitions * (4 * LIMIT + 4 * queues + 10));
      const whole = log.filter(
        (c) =>
          (['hgetall', 'hkeys', 'hvals', 'hscan'].includes(c.name) &&
            (c.key.endsWith(':schedules') || c.key.endsWith(':state'))) ||
          ['zscan', 'zrange'].includes(c.name),
      );
      expect(whole).toEqual([]);

      // a page by offset: the same slice as the walk's
      const at = await m.listPage({ offset: 2000, limit: 50 });
      expect(at.total).toBe(N);
      expect(at.items.map((j) => j.id)).toEqual(ids.slice(2000, 2050));
    }, 120_000);
  }

  it('lists what a writer without the index wrote, and repairs a rename it made', async () => {
    env = testEnv('list-by-name-old');
    const m = env.manager({ role: 'client', auditLimit: 0 });
    await m.scheduleMany(items().slice(0, 300));
    const base = `{${env.prefix}}:bb`;
    // an older writer's create: definition, state and due entry, no index entry
    const def = JSON.parse((await env.redis.hget(`${base}:schedules`, 's1')) as string) as Record<
      string,
      unknown
    >;
    const state = (await env.redis.hget(`${base}:state`, 's1')) as string;
    await env.redis.hset(
      `${base}:schedules`,
      'old-1',
      JSON.stringify({ ...def, id: 'old-1', name: 'aaa-first' }),
    );
    await env.redis.hset(`${base}:state`, 'old-1', state);
    await env.redis.zadd(`${base}:due`, Date.now() + 3_600_000, 'old-1');
    // and its rename of s2 (the index still holds the old name)
    const s2 = JSON.parse((await env.redis.hget(`${base}:schedules`, 's2')) as string) as Record<
      string,
      unknown
    >;
    await env.redis.hset(`${base}:schedules`, 's2', JSON.stringify({ ...s2, name: 'zzz-last' }));

    const first = await m.listPage({ order: 'name', cursor: '0', limit: 10 });
    expect(first.items[0]?.id).toBe('old-1');
    const ids = (await walk(m)).flatMap((p) => p.ids);
    expect(ids.length).toBe(301);
    // the rename is repaired when its page is read: the next walk lists s2 in its new name's place
    const again = (await walk(m)).flatMap((p) => p.ids.map((id, i) => `${p.names[i]}\0${id}`));
    expect(again).toContain('zzz-last\0s2');
    expect(again).toEqual([...again].sort(byBytes));
    const queueIndex = `${base}:qnames:${s2.queue as string}`;
    expect(await env.redis.zscore(queueIndex, 'zzz-last\0s2')).toBe('0');
    expect(await env.redis.zcard(queueIndex)).toBe(301);
    // no index of every schedule beside the queue's (data format 3)
    expect(await env.redis.exists(`${base}:names`)).toBe(0);
  });

  it('refuses an order it does not know, naming it', async () => {
    env = testEnv('list-by-name-bad');
    const m = env.manager({ role: 'client' });
    await expect(m.listPage({ order: 'size' as 'name', cursor: '0' })).rejects.toThrow(/order/);
    await expect(m.listPage({ order: 'name', cursor: 'nope' })).rejects.toThrow(/cursor/);
  });
});
