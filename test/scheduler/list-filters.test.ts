// The filtered list (status, queue, search), paged from the list indexes (includes/names: by name, by
// queue, by status but active, kept by the scripts that change each fact): over 3,000 schedules on one
// and four partitions, every filter's pages by offset are complete and ordered (by name, then id) and
// match the schedules as stored, with the right total, and no page reads a whole definition or state
// hash, nor more than STEP_MAX index members a command (commands counted on the manager's client).
// Older data: a partition written before the queue and status indexes is indexed once on its first
// read; a create, a pause and a removal by a writer that kept no index (an earlier release) are seen as
// far as docs/upgrading.md says (a create and a removal in the same partition cancel in the counts: the
// created one is listed after the partition's `listidx` mark is deleted). Bad input is refused naming
// the field.
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { IntervalTrigger } from '../../src/index.js';
import { internalsOf, type ScheduleManyItem } from '../../src/scheduler/index.js';
import type { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { listIndexPage, STEP_MAX } from '../../src/store/index.js';
import { testEnv } from './helpers.js';

let env: ReturnType<typeof testEnv>;
afterEach(async () => {
  await env.cleanup();
});

const N = 3000;
/** A filter's pages hold at least this many, and each filter is read in about six pages at most. */
const LIMIT = 100;
const PAGES = 6;
const nameOf = (i: number) =>
  i % 50 === 0 ? `été-${i % 7}` : `report-${String((i * 7919) % 300).padStart(3, '0')}`;
const queueOf = (i: number) => `fq-${['alpha', 'beta', 'gamma'][i % 3]}`;
const pausedAt = (i: number) => i % 5 === 0;

function items(): ScheduleManyItem[] {
  return Array.from({ length: N }, (_, i) => ({
    target: { name: nameOf(i), queue: queueOf(i) },
    trigger: new IntervalTrigger(3600),
    options: { id: `s${i}`, labels: { half: pausedAt(i) ? 'p' : 'a' } },
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

interface Row {
  id: string;
  name: string;
  queue: string;
  paused: boolean;
}
const rows: Row[] = Array.from({ length: N }, (_, i) => ({
  id: `s${i}`,
  name: nameOf(i),
  queue: queueOf(i),
  paused: pausedAt(i),
}));

/** The ids a filter should list, by name then id. */
function expected(match: (r: Row) => boolean, all: readonly Row[] = rows): string[] {
  return all
    .filter(match)
    .map((r) => `${r.name}\0${r.id}`)
    .sort(byBytes)
    .map((m) => m.slice(m.lastIndexOf('\0') + 1));
}

/**
 * Every page of a filter by offset (`limit` a page), and the totals each page answered. A page by offset
 * reads the index from its start, so the pages of a large filter are larger: about `PAGES` of them.
 */
async function pages(m: SchedulerManager, query: Parameters<SchedulerManager['listPage']>[0], limit = LIMIT) {
  const ids: string[] = [];
  const totals = new Set<number>();
  for (let offset = 0; ; offset += limit) {
    const page = await m.listPage({ ...query, offset, limit });
    expect(page.totalAtLeast).toBeUndefined();
    totals.add(page.total);
    ids.push(...page.items.map((j) => j.id));
    if (page.items.length < limit) break;
  }
  return { ids, totals: [...totals] };
}

const FILTERS: {
  label: string;
  query: Parameters<SchedulerManager['listPage']>[0];
  match: (r: Row) => boolean;
}[] = [
  { label: 'status paused', query: { status: 'paused' }, match: (r) => r.paused },
  { label: 'status active', query: { status: 'active' }, match: (r) => !r.paused },
  { label: 'queue', query: { queue: 'fq-beta' }, match: (r) => r.queue === 'fq-beta' },
  {
    label: 'queue and status',
    query: { queue: 'fq-beta', status: 'paused' },
    match: (r) => r.queue === 'fq-beta' && r.paused,
  },
  {
    label: 'search by name',
    query: { search: 'REPORT-01' },
    match: (r) => r.name.includes('report-01') || r.id.includes('report-01'),
  },
  {
    label: 'search by id and queue',
    query: { search: 's29' },
    match: (r) => r.id.includes('s29') || r.name.includes('s29') || r.queue.includes('s29'),
  },
  {
    label: 'search by queue name',
    query: { search: 'gamm', status: 'active' },
    match: (r) => r.queue.includes('gamm') && !r.paused,
  },
];

describe('the filtered list from the list indexes', () => {
  for (const partitions of [1, 4]) {
    it(`${N} schedules, ${partitions} partition(s): each filter's pages complete, ordered, counted, each read bounded`, async () => {
      env = testEnv(`list-filters-${partitions}`);
      const m = env.manager({ role: 'client', auditLimit: 0, partitions });
      await m.scheduleMany(items());
      expect((await m.select('half=p').pause()).count).toBe(N / 5);
      const log = countCommands(internalsOf(m).redis);

      for (const f of FILTERS) {
        log.length = 0;
        const want = expected(f.match);
        const { ids, totals } = await pages(m, f.query, Math.max(LIMIT, Math.ceil(want.length / PAGES)));
        expect(want.length, f.label).toBeGreaterThan(0);
        expect(ids, f.label).toEqual(want); // complete, ordered, no duplicates
        expect(totals, f.label).toEqual([want.length]);
        // what the pages read: index steps of at most STEP_MAX members, the page's own rows, no whole hash
        for (const c of log.filter((c) => c.name === 'zrangebylex'))
          expect(c.replyLength, f.label).toBeLessThanOrEqual(STEP_MAX);
        for (const c of log.filter((c) => c.name === 'hmget' || c.name === 'zmscore'))
          expect(c.replyLength, f.label).toBeLessThanOrEqual(STEP_MAX);
        const whole = log.filter(
          (c) =>
            ['hgetall', 'hkeys', 'hvals', 'hscan', 'zscan', 'zrange'].includes(c.name) &&
            /:bb:(schedules|state|names|qnames:.*|snames:.*)$/.test(c.key),
        );
        expect(whole, f.label).toEqual([]);
      }

      // a page of a filter that is one index reads up to the page's end per partition
      log.length = 0;
      const page = await m.listPage({ status: 'paused', offset: 200, limit: 50 });
      expect(page.items.map((j) => j.id)).toEqual(expected((r) => r.paused).slice(200, 250));
      for (const c of log.filter((c) => c.name === 'zrangebylex'))
        expect(c.replyLength).toBeLessThanOrEqual(250);

      // the counts and the queues from the indexes, and a status change by a current writer moves it
      expect((await m.listPage({ status: 'active', limit: 0 })).total).toBe(N - N / 5);
      expect(await internalsOf(m).queueNames()).toEqual(
        expect.arrayContaining(['fq-alpha', 'fq-beta', 'fq-gamma']),
      );
      await m.resume('s0');
      await m.remove('s5');
      expect((await m.listPage({ status: 'paused', limit: 0 })).total).toBe(N / 5 - 2);
      const paused = (await m.listPage({ status: 'paused' })).items.map((j) => j.id);
      expect(paused).not.toContain('s0');
      expect(paused).not.toContain('s5');
      expect((await m.listPage({ status: 'active', queue: 'fq-alpha' })).items.map((j) => j.id)).toContain(
        's0',
      );

      // a search counted past its page stops at the budget of entries per partition: a lower bound, said so
      const { redis, keys } = internalsOf(m);
      const capped = await listIndexPage(redis, keys, { search: 'report' }, 0, 20, 100);
      const matching = expected((r) => r.name.includes('report') && r.id !== 's5');
      expect(capped.ids).toEqual(matching.slice(0, 20));
      expect(capped.totalAtLeast).toBe(true);
      expect(capped.total).toBeGreaterThanOrEqual(20);
      expect(capped.total).toBeLessThan(matching.length);
      const whole = await listIndexPage(redis, keys, { search: 'report' }, 0, 20);
      expect(whole.totalAtLeast).toBeUndefined();
      expect(whole.total).toBe(matching.length);
    }, 180_000);
  }

  it('indexes once a partition written before the queue and status indexes', async () => {
    env = testEnv('list-filters-older');
    const m = env.manager({ role: 'client', auditLimit: 0, partitions: 4 });
    await m.scheduleMany(items().slice(0, 600));
    await m.select('half=p').pause();
    const redis = internalsOf(m).redis;
    const keys = internalsOf(m).keys;
    // as an earlier release left it: no queue or status index, no mark
    for (const k of keys.all()) {
      const queues = await redis.smembers(k.queues);
      await redis.del(
        k.listsIndexed,
        k.queues,
        ...queues.map((q) => k.queueNames(q)),
        k.statusNames('paused'),
        k.statusNames('completed'),
        k.statusNames('errored'),
      );
    }
    const some = rows.slice(0, 600);
    const { ids } = await pages(m, { queue: 'fq-gamma', status: 'paused' });
    expect(ids).toEqual(expected((r) => r.queue === 'fq-gamma' && r.paused, some));
    expect((await m.listPage({ status: 'paused', limit: 0 })).total).toBe(120);
    for (const k of keys.all()) expect(await redis.get(k.listsIndexed)).toBe('1');
  }, 60_000);

  it('what a writer without the indexes changes: a pause and a removal repaired when read, a create hidden by a removal listed after the mark is deleted', async () => {
    env = testEnv('list-filters-old-writer');
    const m = env.manager({ role: 'client', auditLimit: 0 });
    await m.scheduleMany(items().slice(0, 300));
    await m.listPage({ status: 'paused', limit: 0 }); // indexed and checked
    const redis = env.redis;
    const base = `{${env.prefix}}:bb`;
    // the older writer pauses s1 (its state row alone) and removes s3 (definition and state alone)
    const s1 = (await redis.hget(`${base}:state`, 's1')) as string;
    await redis.hset(`${base}:state`, 's1', `p${s1.slice(1)}`);
    // a paused page holds no s1 (no index entry): a status page lists what its index holds ...
    expect((await m.listPage({ status: 'paused' })).items.map((j) => j.id)).not.toContain('s1');
    // ... and an active page that reads s1 leaves it out and repairs it
    const active = await m.listPage({ status: 'active', queue: queueOf(1) });
    expect(active.items.map((j) => j.id)).not.toContain('s1');
    expect((await m.listPage({ status: 'paused' })).items.map((j) => j.id)).toContain('s1');

    // a create and a removal in the same partition between two reads: the counts stay equal
    const def = JSON.parse((await redis.hget(`${base}:schedules`, 's2')) as string) as Record<
      string,
      unknown
    >;
    const state = (await redis.hget(`${base}:state`, 's2')) as string;
    await redis.hset(
      `${base}:schedules`,
      'old-1',
      JSON.stringify({ ...def, id: 'old-1', name: 'aaa-first' }),
    );
    await redis.hset(`${base}:state`, 'old-1', state);
    await redis.hdel(`${base}:schedules`, 's3');
    await redis.hdel(`${base}:state`, 's3');
    const first = await m.listPage({ queue: queueOf(2), limit: 500 });
    const firstIds = first.items.map((j) => j.id);
    expect(firstIds).not.toContain('old-1'); // the create is not seen ...
    // ... the removed one's entry is dropped when a page reads it
    // deleting the partition's mark indexes it again: the create is listed
    await redis.del(`${base}:listidx`);
    const again = await m.listPage({ queue: queueOf(2), limit: 500 });
    expect(again.items[0]?.id).toBe('old-1');

    // the same again, the removal's entry then dropped by the page that reads it: the counts then differ,
    // and the next read repairs the partition, the create included
    await redis.hset(
      `${base}:schedules`,
      'old-2',
      JSON.stringify({ ...def, id: 'old-2', name: 'aaa-second' }),
    );
    await redis.hset(`${base}:state`, 'old-2', state);
    await redis.hdel(`${base}:schedules`, 's6');
    await redis.hdel(`${base}:state`, 's6');
    expect((await m.listPage({ queue: queueOf(2), limit: 500 })).items.map((j) => j.id)).not.toContain(
      'old-2',
    );
    const withGone = await m.listPage({ queue: queueOf(6), limit: 500 });
    expect(withGone.items.map((j) => j.id)).not.toContain('s6');
    expect(await redis.zscore(`${base}:qnames:${queueOf(6)}`, `${nameOf(6)}\0s6`)).toBeNull();
    expect((await m.listPage({ queue: queueOf(2), limit: 500 })).items.map((j) => j.id)).toContain('old-2');
  }, 60_000);

  it('refuses a bad filter, naming the field', async () => {
    env = testEnv('list-filters-bad');
    const m = env.manager({ role: 'client' });
    await expect(m.listPage({ status: 'sleeping' as 'paused' })).rejects.toThrow(/status/);
    await expect(m.listPage({ queue: 5 as unknown as string })).rejects.toThrow(/queue/);
    await expect(m.listPage({ search: {} as unknown as string })).rejects.toThrow(/search/);
    await expect(m.listPage({ offset: -1, limit: 10 })).rejects.toThrow(/offset/);
    await expect(m.listPage({ status: 'paused', limit: 1.5 })).rejects.toThrow(/limit/);
  });
});
