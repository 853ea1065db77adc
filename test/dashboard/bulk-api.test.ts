import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/index.js';
import { REDIS_URL } from '../redis-url.js';
import { startTestDashboard, type TestDashboard } from './harness.js';

/** Labels, selectors and bulk changes through the JSON API: a batch, a filter, pause/resume/remove by selector. */
describe('bulk changes over the JSON API', () => {
  let t: TestDashboard;
  beforeAll(async () => {
    t = await startTestDashboard();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  const item = (i: number, tenant: string) => ({
    id: `b${i}`,
    name: 'report',
    queue: t.queue,
    trigger: { type: 'cron', expression: `${i} 9 * * *` },
    labels: { tenant },
  });

  it('a batch with one bad item is refused naming it and its field; nothing written', async () => {
    const bad = await t.api('POST', '/api/schedules:batch', {
      schedules: [item(1, 'acme'), { ...item(2, 'acme'), labels: { 'my key': 'x' } }],
    });
    expect(bad, JSON.stringify(bad.body)).toMatchObject({
      status: 400,
      body: { field: 'schedules[1].labels.my key' },
    });
    const cron = await t.api('POST', '/api/schedules:batch', {
      schedules: [
        item(1, 'acme'),
        { ...item(2, 'acme'), trigger: { type: 'cron', expression: '61 * * * *' } },
      ],
    });
    expect(cron.status).toBe(400);
    expect(cron.body.field).toMatch(/^schedules\[1\]\.trigger/);
    expect((await t.api('GET', '/api/schedules?selector=tenant')).body.total).toBe(0);
  });

  it('creates a batch, filters the list by selector, pauses, resumes and removes by selector', async () => {
    const schedules = Array.from({ length: 12 }, (_, i) => item(i, i % 3 === 0 ? 'acme' : 'globex'));
    const made = await t.api('POST', '/api/schedules:batch', { schedules });
    expect(made).toMatchObject({ status: 200, body: { matched: 12, count: 12, failed: [] } });
    const acme = await t.api('GET', '/api/schedules?selector=tenant%3Dacme');
    expect(acme.body.total).toBe(4);
    expect(acme.body.items.map((s: { id: string }) => s.id).sort()).toEqual(['b0', 'b3', 'b6', 'b9']);
    const badSel = await t.api('GET', '/api/schedules?selector=tenant%3D%3D%3D');
    expect(badSel).toMatchObject({ status: 400, body: { field: 'selector' } });

    const paused = await t.api('POST', '/api/schedules:pause', {
      selector: 'tenant=acme',
      note: 'offboarding',
    });
    expect(paused).toMatchObject({ status: 200, body: { selector: 'tenant=acme', matched: 4, count: 4 } });
    expect((await t.api('GET', '/api/schedules?status=paused&selector=tenant%3Dacme')).body.total).toBe(4);
    expect((await t.api('GET', '/api/schedules?status=paused')).body.total).toBe(4);
    expect((await t.api('GET', '/api/schedules/b3')).body.pauseNote).toMatchObject({
      note: 'offboarding',
      by: 'api:token',
    });
    const resumed = await t.api('POST', '/api/schedules:resume', { selector: 'tenant=acme', policy: 'skip' });
    expect(resumed.body).toMatchObject({ matched: 4, count: 4 });
    const removed = await t.api('POST', '/api/schedules:remove', { selector: 'tenant=globex' });
    expect(removed.body).toMatchObject({ matched: 8, count: 8 });
    expect((await t.api('GET', '/api/schedules?selector=tenant')).body.total).toBe(4);
    const noSel = await t.api('POST', '/api/schedules:pause', { note: 'x' });
    expect(noSel).toMatchObject({ status: 400, body: { field: 'selector' } });
    const empty = await t.api('POST', '/api/schedules:remove', { selector: '' });
    expect(empty).toMatchObject({ status: 400, body: { field: 'selector' } });

    // the schedules page filters by the same selector, shows each row's labels, and names a bad one
    const page = async (query: string) => {
      const r = await fetch(`${t.url}/?${query}`, {
        headers: { authorization: 'Bearer test-token-0123456789' },
      });
      expect(r.status).toBe(200);
      return r.text();
    };
    const acmePage = await page('selector=tenant%3Dacme');
    expect([...acmePage.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]).sort()).toEqual([
      'b0',
      'b3',
      'b6',
      'b9',
    ]);
    expect(acmePage).toContain('<span data-labels>tenant=acme</span>');
    expect(acmePage).toContain('value="tenant=acme"');
    const badPage = await page('selector=tenant%3D%3D%3D');
    expect(badPage).toContain('selector: &quot;tenant===&quot;');
    expect(badPage).not.toContain('<tr data-id=');

    const changes = await t.api('GET', '/api/bulk-changes');
    expect(changes.body.items.map((c: { op: string; count: number }) => [c.op, c.count])).toEqual([
      ['remove', 8],
      ['resume', 4],
      ['pause', 4],
      ['create', 12],
    ]);
    expect(changes.body.items[0]).toMatchObject({
      actor: 'api:token',
      source: 'api',
      selector: 'tenant=globex',
    });
  });

  it('backfills by selector: a dry run answers per schedule what it would enqueue; bad input names the field', async () => {
    const hourly = (i: number, tenant: string) => ({
      ...item(100 + i, tenant),
      trigger: { type: 'cron', expression: '0 * * * *' },
    });
    await t.api('POST', '/api/schedules:batch', {
      schedules: [hourly(0, 'bf'), hourly(1, 'bf'), hourly(2, 'nobf')],
    });
    const from = '2026-01-01T00:00:00Z';
    const to = '2026-01-01T02:00:00Z';
    const dry = await t.api('POST', '/api/schedules:backfill', {
      selector: 'tenant=bf',
      from,
      to,
      dryRun: true,
    });
    expect(dry, JSON.stringify(dry.body)).toMatchObject({
      status: 200,
      body: { dryRun: true, matched: 2, count: 2, enqueued: 4 },
    });
    const h = (n: number) => Date.UTC(2026, 0, 1, n);
    expect(dry.body.schedules).toEqual([
      { scheduleId: 'b100', enqueued: 2, skipped: 0, fireTimes: [h(0), h(1)] },
      { scheduleId: 'b101', enqueued: 2, skipped: 0, fireTimes: [h(0), h(1)] },
    ]);
    const run = await t.api('POST', '/api/schedules:backfill', { selector: 'tenant=bf', from, to });
    expect(run.body).toMatchObject({ dryRun: false, enqueued: 4, count: 2 });
    const again = await t.api('POST', '/api/schedules:backfill', {
      selector: 'tenant=bf',
      from,
      to,
      dryRun: true,
    });
    expect(again.body).toMatchObject({ enqueued: 0, count: 0 });
    const reversed = await t.api('POST', '/api/schedules:backfill', {
      selector: 'tenant=bf',
      from: to,
      to: from,
    });
    expect(reversed).toMatchObject({ status: 400, body: { field: 'to' } });
    const badSel = await t.api('POST', '/api/schedules:backfill', { selector: 'tenant=acme,,', from, to });
    expect(badSel).toMatchObject({ status: 400, body: { field: 'selector' } });
    const unknown = await t.api('POST', '/api/schedules:backfill', { selector: 'tenant=bf', from, to, x: 1 });
    expect(unknown).toMatchObject({ status: 400 });
  });

  it('a batch naming a schedule defined in code is refused naming the item; nothing written', async () => {
    const code = new SchedulerManager({ prefix: t.prefix, role: 'client', connection: REDIS_URL });
    await code.cron('0 5 * * *', { id: 'code-nightly' })(async function codeNightly() {});
    await code.start(); // a client: saves its code schedules, fires nothing
    await code.close();
    expect((await t.api('GET', '/api/schedules/code-nightly')).body.source).toBe('code');
    const r = await t.api('POST', '/api/schedules:batch', {
      schedules: [item(20, 'acme'), { ...item(21, 'acme'), id: 'code-nightly' }],
    });
    expect(r, JSON.stringify(r.body)).toMatchObject({ status: 400, body: { field: 'schedules[1].id' } });
    expect(r.body.error).toContain('schedule "code-nightly" is defined in code');
    expect((await t.api('GET', '/api/schedules/b20')).status).toBe(404);
  });

  it('lists by cursor: every schedule over the pages, the last answering cursor null; a bad cursor named', async () => {
    const all = (await t.api('GET', '/api/schedules?limit=500')).body.total as number;
    const seen = new Set<string>();
    let cursor: string | null = '0';
    for (let pages = 0; cursor !== null && pages < 100; pages++) {
      const r = await t.api('GET', `/api/schedules?cursor=${encodeURIComponent(cursor)}&limit=5`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.total).toBe(all);
      for (const item of r.body.items as { id: string }[]) seen.add(item.id);
      cursor = r.body.cursor;
    }
    expect(cursor).toBeNull();
    expect(seen.size).toBe(all);
    const bad = await t.api('GET', '/api/schedules?cursor=nope');
    expect(bad).toMatchObject({ status: 400, body: { field: 'cursor' } });
    const withSel = await t.api('GET', '/api/schedules?cursor=0&selector=tenant%3Dacme');
    expect(withSel).toMatchObject({ status: 400, body: { field: 'cursor' } });
  });
});
