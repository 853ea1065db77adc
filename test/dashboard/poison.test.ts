import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../redis-url.js';
import { writeBadRows } from '../scheduler/bad-rows.js';
import { BASIC, startTestDashboard, type TestDashboard } from './harness.js';

describe('dashboard against poison input and bad stored rows', () => {
  let t: TestDashboard;
  let redis: Redis;
  beforeAll(async () => {
    t = await startTestDashboard();
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await redis.quit();
    await t.cleanup();
  });

  it.each([
    [{ priority: 3_000_000 }, 'jobOptions.priority'],
    [{ sizeLimit: 'big' }, 'jobOptions.sizeLimit'],
    [{ deduplication: {} }, 'jobOptions.deduplication.id'],
  ])(
    'POST /api/schedules with jobOptions %j answers 400 naming %s, and stores nothing',
    async (jobOptions, field) => {
      const res = await t.api('POST', '/api/schedules', {
        name: 'poison',
        queue: t.queue,
        trigger: { type: 'interval', seconds: 60 },
        jobOptions,
      });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe(field);
      expect((await t.api('GET', '/api/schedules/poison')).status).toBe(404);
    },
  );

  it.each([
    [{ type: 'date', at: 1e20 }, 'trigger.at'],
    [{ type: 'interval', seconds: 1e300 }, 'trigger.seconds'],
  ])('POST /api/schedules with trigger %j answers 400 naming %s', async (trigger, field) => {
    const res = await t.api('POST', '/api/schedules', { name: 'far', queue: t.queue, trigger });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
    expect(res.body.error).toContain('out of range');
  });

  it('startAt out of range answers 400 naming it', async () => {
    const res = await t.api('POST', '/api/schedules', {
      name: 'late-start',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
      startAt: 1e20,
    });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('startAt');
  });

  it('bad stored rows: the list page, the schedule page and the API answer 200 and show them errored', async () => {
    const created = await t.api('POST', '/api/schedules', {
      name: 'good',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
    });
    expect(created.status).toBe(201);
    const bad = await writeBadRows(redis, t.prefix, 'good');
    const page = await fetch(`${t.url}/`, { headers: BASIC });
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const id of bad) expect(html).toContain(`data-id="${id}"`);
    expect(html).toContain('data-status="errored"');
    for (const id of bad) {
      const one = await fetch(`${t.url}/schedules/${id}`, { headers: BASIC });
      expect(one.status, id).toBe(200);
      expect(await one.text()).toContain('errored');
      const api = await t.api('GET', `/api/schedules/${id}`);
      expect(api.status, id).toBe(200);
      expect(api.body.status).toBe('errored');
      expect(api.body.error.reason).toBeTruthy();
    }
    const list = await t.api('GET', '/api/schedules');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(4);
    // filters and counts go by the stored status (see schedule-listing.ts); the rows show errored
    expect((await t.api('GET', '/api/schedules?status=errored')).status).toBe(200);
    expect((await t.api('GET', '/api/stats')).status).toBe(200);
    const metrics = await fetch(`${t.url}/metrics`, { headers: BASIC });
    expect(await metrics.text()).toContain('bullbeat_schedules{status="errored"} 0');
  });
});
