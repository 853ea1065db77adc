// spread and group through the JSON API: taken and shown, refused naming the field, the groups' occupancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spreadOffsetMs } from '../../src/store/forms/spread.js';
import { startTestDashboard, type TestDashboard } from './harness.js';

describe('spread and group in the JSON API', () => {
  let t: TestDashboard;
  beforeAll(async () => {
    t = await startTestDashboard();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it('creates schedules with them, lists the group, and refuses bad values naming the field', async () => {
    const body = (id: string, extra: object) => ({
      id,
      name: 'tenant-report',
      trigger: { type: 'cron', expression: '0 0 * * *', timezone: 'America/New_York' },
      queue: t.queue,
      ...extra,
    });
    const group = { key: 'tenant:acme', max: 2 };
    for (const id of ['acme-1', 'acme-2']) {
      const created = await t.api('POST', '/api/schedules', body(id, { spread: '10m', group }));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const shown = await t.api('GET', '/api/schedules/acme-1');
    expect(shown.body.definition).toMatchObject({ spreadMs: 600_000, run: { group } });

    const groups = await t.api('GET', '/api/groups');
    expect(groups.body).toEqual({
      groups: [{ key: 'tenant:acme', max: 2, schedules: 2, running: 0, waiting: 0 }],
    });

    const agenda = await t.api('GET', '/api/agenda?next=2d');
    const entry = (agenda.body.entries as { scheduleId: string; at: number; firesAt?: number }[]).find(
      (e) => e.scheduleId === 'acme-1',
    );
    expect(entry?.firesAt).toBe((entry?.at as number) + spreadOffsetMs('acme-1', 600_000));

    const zero = await t.api(
      'POST',
      '/api/schedules',
      body('acme-3', { group: { key: 'tenant:acme', max: 0 } }),
    );
    expect(zero.status).toBe(400);
    expect(zero.body.field).toBe('group.max');
    const long = await t.api('POST', '/api/schedules', body('acme-4', { spread: '2d' }));
    expect(long.status).toBe(400);
    expect(long.body.field).toBe('spread');
    expect(long.body.error).toMatch(/2d is longer than the trigger's shortest gap between occurrences/);
    // a label key with spaces, and a selector that does not parse: each named
    const spaced = await t.api('POST', '/api/schedules', body('acme-5', { labels: { 'my key': 'x' } }));
    expect(spaced.status).toBe(400);
    expect(spaced.body.field).toBe('labels.my key');
    const selector = await t.api('POST', '/api/schedules:pause', { selector: 'tenant=acme,,' });
    expect(selector.status).toBe(400);
    expect(selector.body.field).toBe('selector');
    expect((await t.api('GET', '/api/schedules/acme-3')).status).toBe(404);
    expect((await t.api('GET', '/api/schedules/acme-4')).status).toBe(404);
    expect((await t.api('GET', '/api/schedules/acme-5')).status).toBe(404);
  });
});
