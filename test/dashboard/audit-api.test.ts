// GET /api/schedules/{id}/history: the audit trail over the JSON API, with the token's name as the
// actor of the changes made with it; a removed schedule's trail answers while it is kept.
import { afterEach, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/scheduler/index.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { BASIC, startTestDashboard, type TestDashboard } from './harness.js';

let t: TestDashboard;
afterEach(async () => {
  await t?.cleanup();
});

describe('GET /api/schedules/{id}/history', () => {
  it('lists every change made through the API, newest first, by the token’s name, and pages', async () => {
    t = await startTestDashboard({ tokenName: 'deploy-bot' });
    const base = '/api/schedules/nightly';
    const created = await t.api('POST', '/api/schedules', {
      name: 'nightly',
      queue: t.queue,
      trigger: { type: 'cron', expression: '0 2 * * *' },
    });
    expect(created.status).toBe(201);
    expect((await t.api('PATCH', base, { trigger: { type: 'cron', expression: '30 2 * * *' } })).status).toBe(
      200,
    );
    expect((await t.api('POST', `${base}/pause`, { note: 'db migration' })).body.changed).toBe(true);
    expect((await t.api('POST', `${base}/resume`, { policy: 'skip' })).body.changed).toBe(true);
    expect((await t.api('POST', `${base}/trigger`)).status).toBe(202);

    const h = await t.api('GET', `${base}/history`);
    expect(h.status).toBe(200);
    expect(h.body.removed).toBe(false);
    expect(h.body.keptUntil).toBeNull();
    const items = h.body.items as { op: string; actor: string; source: string }[];
    expect(items.map((e) => e.op)).toEqual(['trigger', 'resume', 'pause', 'update', 'create']);
    for (const e of items) expect(e).toMatchObject({ actor: 'api:deploy-bot', source: 'api' });
    expect(h.body.items[2].note).toBe('db migration');
    expect(h.body.items[1].policy).toBe('skip');
    expect(h.body.items[3].changes).toEqual([
      {
        field: 'trigger',
        before: { type: 'cron', expression: '0 2 * * *' },
        after: { type: 'cron', expression: '30 2 * * *' },
      },
    ]);

    const page1 = await t.api('GET', `${base}/history?limit=2`);
    expect(page1.body.items.map((e: { op: string }) => e.op)).toEqual(['trigger', 'resume']);
    const page2 = await t.api('GET', `${base}/history?limit=2&before=${page1.body.items[1].id}`);
    expect(page2.body.items.map((e: { op: string }) => e.op)).toEqual(['pause', 'update']);
    const bad = await t.api('GET', `${base}/history?before=yesterday`);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('before');

    // removed: the trail stays, to investigate the remove
    expect((await t.api('DELETE', base)).status).toBe(200);
    const after = await t.api('GET', `${base}/history`);
    expect(after.status).toBe(200);
    expect(after.body.removed).toBe(true);
    expect(after.body.items[0]).toMatchObject({ op: 'remove', actor: 'api:deploy-bot', source: 'api' });
    expect(after.body.keptUntil).toBe(
      after.body.items[0].at + internalsOf(t.scheduler).options.auditRetentionMs,
    );
    expect((await t.api('GET', '/api/schedules/never-was/history')).status).toBe(404);
  });

  it('the actor is who authenticated: a caller’s `by` / `onBehalfOf` is kept apart, and never the system’s name', async () => {
    t = await startTestDashboard({ tokenName: 'deploy-bot' });
    await t.api('POST', '/api/schedules', {
      name: 'claimed',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
    });
    // a bearer token saying it is someone else: the token stays the actor, the claim is labelled
    const forged = await t.api('POST', '/api/schedules/claimed/pause', { by: 'ann@example.com', note: 'n' });
    expect(forged.status).toBe(200);
    expect(forged.body.schedule.pauseNote).toMatchObject({
      by: 'api:deploy-bot',
      onBehalfOf: 'ann@example.com',
    });
    await t.api('POST', '/api/schedules/claimed/resume');
    const said = await t.api('POST', '/api/schedules/claimed/pause', { onBehalfOf: 'bob@example.com' });
    expect(said.status).toBe(200);
    const items = (await t.api('GET', '/api/schedules/claimed/history')).body.items;
    expect(items.slice(0, 3)).toEqual([
      expect.objectContaining({
        op: 'pause',
        actor: 'api:deploy-bot',
        source: 'api',
        onBehalfOf: 'bob@example.com',
      }),
      expect.objectContaining({ op: 'resume', actor: 'api:deploy-bot' }),
      expect.objectContaining({ op: 'pause', actor: 'api:deploy-bot', onBehalfOf: 'ann@example.com' }),
    ]);
    expect(items[1].onBehalfOf).toBeUndefined();
    // the page shows the claim under the actor, labelled, and with the pause note
    const html = await (await fetch(`${t.url}/schedules/claimed`, { headers: BASIC })).text();
    expect(html).toContain('<td data-actor>api:deploy-bot<div class="sub" data-on-behalf-of');
    expect(html).toContain('>for bob@example.com</div>');
    expect(html).toContain('Paused</b> by api:deploy-bot (for bob@example.com)');
    await t.api('POST', '/api/schedules/claimed/resume');

    // a dashboard user pausing a code schedule as "bullbeat": refused, nothing written
    t.scheduler.schedule({ name: 'code-one', queue: t.queue }, new IntervalTrigger(60), { id: 'code-one' });
    await t.scheduler.start();
    const page = await fetch(`${t.url}/`, { headers: BASIC });
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1] ?? '';
    const browser = { ...BASIC, cookie, 'x-csrf-token': csrf };
    const before = (await t.api('GET', '/api/schedules/code-one/history')).body.items.length;
    for (const body of [{ by: 'bullbeat' }, { onBehalfOf: 'bullbeat' }, { onBehalfOf: ' BullBeat ' }]) {
      const r = await t.api('POST', '/api/schedules/code-one/pause', body, browser);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.field).toBe('onBehalfOf');
    }
    expect((await t.api('GET', '/api/schedules/code-one')).body.status).toBe('active');
    expect((await t.api('GET', '/api/schedules/code-one/history')).body.items).toHaveLength(before);
    const own = await t.api('POST', '/api/schedules/code-one/pause', { note: 'ok' }, browser);
    expect(own.body.schedule.pauseNote).toMatchObject({ by: 'dashboard:admin' });
    expect(own.body.schedule.pauseNote.onBehalfOf).toBeUndefined();
    const last = (await t.api('GET', '/api/schedules/code-one/history')).body.items[0];
    expect(last).toMatchObject({ op: 'pause', actor: 'dashboard:admin', source: 'dashboard' });
  });
});
