// POST /api/schedules/:id/revert and the schedule page's "Revert to this" form: a runtime schedule back
// to a definition of its audit trail, audited as the caller; refusals name the field, nothing changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDashboard, type TestDashboard, TOKEN } from './harness.js';

describe('revert over the JSON API and the schedule page', () => {
  let t: TestDashboard;
  beforeAll(async () => {
    t = await startTestDashboard();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("undoes the last change, reverts to an entry, refuses another schedule's entry and a code schedule", async () => {
    const create = (name: string, seconds: number) =>
      t.api('POST', '/api/schedules', { name, queue: t.queue, trigger: { type: 'interval', seconds } });
    expect((await create('other', 30)).status).toBe(201);
    expect((await create('rev', 60)).status).toBe(201);
    expect(
      (
        await t.api('PATCH', '/api/schedules/rev', {
          trigger: { type: 'interval', seconds: 600 },
          attempts: 5,
        })
      ).status,
    ).toBe(200);

    const undone = await t.api('POST', '/api/schedules/rev/revert', {});
    expect(undone.status, JSON.stringify(undone.body)).toBe(200);
    expect(undone.body.changed).toBe(true);
    expect(undone.body.schedule.definition).toMatchObject({
      trigger: { type: 'interval', seconds: 60 },
      attempts: 1,
    });
    const trail = (await t.api('GET', '/api/schedules/rev/history')).body.items;
    expect(trail[0]).toMatchObject({ op: 'update', actor: 'api:token', source: 'api' });

    const otherEntry = (await t.api('GET', '/api/schedules/other/history')).body.items[0].id;
    const before = (await t.api('GET', '/api/schedules/rev')).body.definition;
    for (const [body, field] of [
      [{ to: otherEntry }, 'to'],
      [{ to: 'last-week' }, 'to'],
      [{ into: 'x' }, 'into'],
    ] as const) {
      const r = await t.api('POST', '/api/schedules/rev/revert', body);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.field).toBe(field);
    }
    expect((await t.api('GET', '/api/schedules/rev')).body.definition).toEqual(before);
    expect((await t.api('POST', '/api/schedules/nope/revert', {})).status).toBe(404);

    // to an entry: the update's own definition (600 s, 5 attempts)
    const update = trail[1];
    const to = await t.api('POST', '/api/schedules/rev/revert', { to: update.id });
    expect(to.body).toMatchObject({ entry: update.id, changed: true });
    expect(to.body.schedule.definition).toMatchObject({
      trigger: { type: 'interval', seconds: 600 },
      attempts: 5,
    });

    // a code schedule: refused naming source and the deploy
    t.scheduler.every(3600, { id: 'code-job', queue: t.queue })(async function codeJob() {});
    await t.scheduler.start();
    const code = await t.api('POST', '/api/schedules/code-job/revert', {});
    expect(code.status).toBe(400);
    expect(code.body.field).toBe('source');
    expect(code.body.error).toMatch(/revert the code change deployed at/);

    // the page shows a "Revert to this" button on each definition entry of a runtime schedule only
    const page = await fetch(`${t.url}/schedules/rev`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const text = await page.text();
    expect(text).toContain(`data-revert-to="${update.id}"`);
    const codePage = await (
      await fetch(`${t.url}/schedules/code-job`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).text();
    expect(codePage).not.toContain('data-revert-to');

    const doc = (await t.api('GET', '/api/openapi.json')).body;
    expect(doc.paths['/schedules/{id}/revert'].post.summary).toMatch(/audit trail/);
  });
});
