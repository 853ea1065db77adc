// Listing every schedule on a Redis Cluster page by page: each page walks the partitions' `schedules`
// hashes with HSCAN from the cursor the previous page answered, never a whole index; by name, each page
// merges each partition's queue indexes (in the partition's slot), then the partitions'. Enough schedules
// per partition that HSCAN pages (a hash past its small encoding), a small count so that it takes many.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IntervalTrigger } from '../../src/index.js';
import { type LocalCluster, startCluster } from '../setup/redis-cluster.js';
import { clusterEnv } from './helpers.js';

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describe('list pages by cursor on a Redis Cluster', () => {
  let env: ReturnType<typeof clusterEnv>;
  afterEach(async () => {
    await env?.cleanup();
  });

  it('3,000 schedules over 3 partitions, 50 a page: every one listed, page by page, each page small', async () => {
    env = clusterEnv(cluster, 'list-paging', 3);
    const m = env.manager({ role: 'client', auditLimit: 0 });
    const n = 3000;
    const made = await m.scheduleMany(
      Array.from({ length: n }, (_, i) => ({
        target: { name: i % 2 === 0 ? 'even' : 'odd' },
        trigger: new IntervalTrigger(3600),
        options: { id: `s${i}` },
      })),
    );
    expect(made.count).toBe(n);
    const seen = new Set<string>();
    let cursor: string | undefined = '0';
    let pages = 0;
    let largest = 0;
    while (cursor !== undefined) {
      const page: Awaited<ReturnType<typeof m.listPage>> = await m.listPage({ cursor, limit: 50 });
      expect(page.total).toBe(n);
      pages++;
      largest = Math.max(largest, page.items.length);
      for (const j of page.items) seen.add(j.id);
      cursor = page.cursor;
      expect(pages).toBeLessThan(1000); // a walk that ends
    }
    expect(seen.size).toBe(n);
    expect([...seen].every((id) => /^s\d+$/.test(id))).toBe(true);
    expect(pages).toBeGreaterThan(20); // paged, not read whole
    expect(largest).toBeLessThan(200); // each page about its count, not a partition

    // filters apply to each page's schedules; a bad cursor is refused naming it
    const odd = await m.listPage({ cursor: '0', limit: 200, search: 'odd' });
    expect(odd.items.length).toBeGreaterThan(0);
    expect(odd.items.every((j) => j.name === 'odd')).toBe(true);
    await expect(m.listPage({ cursor: 'x' })).rejects.toMatchObject({ field: 'cursor' });
    await expect(m.listPage({ cursor: '7:0' })).rejects.toMatchObject({ field: 'cursor' });
    await expect(m.listPage({ cursor: '0', selector: 'a=b' })).rejects.toMatchObject({ field: 'cursor' });
  }, 240_000);

  it('by name: 3,000 schedules over 3 partitions and 25 queues (merged), 50 a page, complete, ordered, without duplicates', async () => {
    env = clusterEnv(cluster, 'list-by-name', 3);
    const m = env.manager({ role: 'client', auditLimit: 0 });
    const n = 3000;
    await m.scheduleMany(
      Array.from({ length: n }, (_, i) => ({
        target: { name: `n${(i * 7919) % 500}`, queue: `${env.prefix}-m${i % 25}` },
        trigger: new IntervalTrigger(3600),
        options: { id: `s${i}` },
      })),
    );
    const keys: string[] = [];
    let cursor: string | undefined = '0';
    while (cursor !== undefined) {
      const page: Awaited<ReturnType<typeof m.listPage>> = await m.listPage({
        cursor,
        limit: 50,
        order: 'name',
      });
      expect(page.items.length).toBeLessThanOrEqual(50);
      for (const j of page.items) keys.push(`${j.name}\0${j.id}`);
      cursor = page.cursor;
      expect(keys.length).toBeLessThanOrEqual(n + 50); // a walk that ends
    }
    expect(keys.length).toBe(n);
    expect(new Set(keys).size).toBe(n);
    expect(keys).toEqual([...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
  }, 240_000);

  it('filtered: 3,000 schedules over 3 partitions by status, queue and search, each by offset complete and ordered', async () => {
    env = clusterEnv(cluster, 'list-filters', 3);
    const m = env.manager({ role: 'client', auditLimit: 0 });
    const n = 3000;
    const queueOf = (i: number) => `${env.prefix}-q${i % 3}`;
    await m.scheduleMany(
      Array.from({ length: n }, (_, i) => ({
        target: { name: `n${(i * 7919) % 500}`, queue: queueOf(i) },
        trigger: new IntervalTrigger(3600),
        options: { id: `s${i}`, labels: { half: i % 4 === 0 ? 'p' : 'a' } },
      })),
    );
    expect((await m.select('half=p').pause()).count).toBe(n / 4);
    const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    const want = (match: (i: number) => boolean) =>
      Array.from({ length: n }, (_, i) => i)
        .filter(match)
        .map((i) => `n${(i * 7919) % 500}\0s${i}`)
        .sort(byBytes)
        .map((k) => k.slice(k.indexOf('\0') + 1));
    const cases: [Parameters<typeof m.listPage>[0], (i: number) => boolean][] = [
      [{}, () => true],
      [{ status: 'paused' }, (i) => i % 4 === 0],
      [{ status: 'active' }, (i) => i % 4 !== 0],
      [{ status: 'active', queue: queueOf(1) }, (i) => i % 4 !== 0 && i % 3 === 1],
      [{ search: 'n49' }, (i) => `n${(i * 7919) % 500}`.includes('n49') || `s${i}`.includes('n49')],
    ];
    for (const [query, match] of cases) {
      const ids: string[] = [];
      for (let offset = 0; ; offset += 200) {
        const page = await m.listPage({ ...query, offset, limit: 200 });
        expect(page.total).toBe(want(match).length);
        ids.push(...page.items.map((j) => j.id));
        if (page.items.length < 200) break;
      }
      expect(ids).toEqual(want(match));
    }
  }, 240_000);
});
