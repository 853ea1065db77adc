import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDashboard, type TestDashboard } from './harness.js';

/** The schedule controls through the JSON API: update, pause with a note, resume with a policy, immediately. */
describe('schedule controls over the JSON API', () => {
  let t: TestDashboard;
  beforeAll(async () => {
    t = await startTestDashboard();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it('PATCH: a bad field or a missing id is refused, nothing changed', async () => {
    await t.api('POST', '/api/schedules', {
      name: 'edit-me',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
      attempts: 2,
    });
    const before = (await t.api('GET', '/api/schedules/edit-me')).body;
    for (const [body, field] of [
      [{ maxInstances: -1 }, 'maxInstances'],
      [{ misfire: 'never' }, 'misfire'],
      [{ attemps: 3 }, 'attemps'],
    ] as const) {
      const r = await t.api('PATCH', '/api/schedules/edit-me', body);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.field).toBe(field);
    }
    expect((await t.api('GET', '/api/schedules/edit-me')).body.definition).toEqual(before.definition);
    expect((await t.api('PATCH', '/api/schedules/nope', { attempts: 3 })).status).toBe(404);
    const ok = await t.api('PATCH', '/api/schedules/edit-me', { misfire: 'skip' });
    expect(ok.status).toBe(200);
    expect(ok.body.definition).toMatchObject({ misfire: 'skip', attempts: 2 });
  });

  it('pause with a note: shown in the schedule and the list; a note over 500 characters is refused', async () => {
    await t.api('POST', '/api/schedules', {
      name: 'noted',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 0.1 },
    });
    const long = await t.api('POST', '/api/schedules/noted/pause', { note: 'x'.repeat(501) });
    expect(long).toMatchObject({ status: 400, body: { field: 'note' } });
    expect((await t.api('GET', '/api/schedules/noted')).body).toMatchObject({
      status: 'active',
      pauseNote: null,
    });
    const paused = await t.api('POST', '/api/schedules/noted/pause', { note: 'DB migration' });
    expect(paused.status).toBe(200);
    expect(paused.body.schedule).toMatchObject({
      status: 'paused',
      pauseNote: { note: 'DB migration', by: 'api:token' /* a bearer token's actor is its name */ },
    });
    const list = await t.api('GET', '/api/schedules?status=paused');
    expect(list.body.items.find((s: { id: string }) => s.id === 'noted').pauseNote.note).toBe('DB migration');
    const unknown = await t.api('POST', '/api/schedules/noted/pause', { reason: 'x' });
    expect(unknown).toMatchObject({ status: 400, body: { field: 'reason' } });
  });

  it('resume: an unknown policy is refused (still paused); all enqueues each missed occurrence as catch-up', async () => {
    await new Promise((r) => setTimeout(r, 300)); // a few occurrences are due while paused
    const bad = await t.api('POST', '/api/schedules/noted/resume', { policy: 'twice' });
    expect(bad).toMatchObject({ status: 400, body: { field: 'policy' } });
    const tooMany = await t.api('POST', '/api/schedules/noted/resume', { policy: 'all', maxCatchUp: 0 });
    expect(tooMany).toMatchObject({ status: 400, body: { field: 'maxCatchUp' } });
    expect((await t.api('GET', '/api/schedules/noted')).body.status).toBe('paused');
    const resumed = await t.api('POST', '/api/schedules/noted/resume', { policy: 'all' });
    expect(resumed.status).toBe(200);
    expect(resumed.body.schedule).toMatchObject({ status: 'active', pauseNote: null });
    const runs = (await t.api('GET', '/api/schedules/noted/runs')).body.items as { kind: string }[];
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r) => r.kind === 'catch-up')).toBe(true);
  });

  it('POST with immediately: due now, then on its trigger; a bad value is refused naming it', async () => {
    const bad = await t.api('POST', '/api/schedules', {
      name: 'warm',
      queue: t.queue,
      trigger: { type: 'cron', expression: '0 4 * * *' },
      immediately: 'yes',
    });
    expect(bad).toMatchObject({ status: 400, body: { field: 'immediately' } });
    expect((await t.api('GET', '/api/schedules/warm')).status).toBe(404);
    const before = Date.now();
    const created = await t.api('POST', '/api/schedules', {
      name: 'warm',
      queue: t.queue,
      trigger: { type: 'cron', expression: '0 4 * * *' },
      immediately: true,
    });
    expect(created.status).toBe(201);
    expect(created.body.definition.immediately).toBe(true);
    const [first, second] = created.body.nextFireTimes as number[];
    expect(first).toBeGreaterThanOrEqual(before - 1000);
    expect(first).toBeLessThanOrEqual(Date.now() + 1000);
    expect(new Date(second!).getUTCHours()).toBe(4);
  });
});
