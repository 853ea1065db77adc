// The JSON API takes overlap and pauseOnFailure like every other option: through the one schema
// (a bad value is a 400 naming the field, nothing stored), stored on the schedule's run options.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDashboard, type TestDashboard } from './harness.js';

describe('dashboard API: overlap and pauseOnFailure', () => {
  let t: TestDashboard;
  beforeAll(async () => {
    t = await startTestDashboard();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it('stores them on create and on update', async () => {
    const created = await t.api('POST', '/api/schedules', {
      name: 'buffered',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
      overlap: 'bufferAll',
      pauseOnFailure: 3,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.definition.run).toMatchObject({ overlap: 'bufferAll', pauseOnFailure: 3 });
    const updated = await t.api('PATCH', '/api/schedules/buffered', { overlap: 'cancelOther' });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.definition.run).toMatchObject({ overlap: 'cancelOther', pauseOnFailure: 3 });
  });

  it.each([
    [{ overlap: 'never' }, 'overlap'],
    [{ overlap: 'skip', maxInstances: 0 }, 'overlap'],
    [{ pauseOnFailure: -2 }, 'pauseOnFailure'],
  ])('%j is a 400 naming the field; nothing is stored', async (options, field) => {
    const r = await t.api('POST', '/api/schedules', {
      name: 'refused',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
      ...options,
    });
    expect(r.status).toBe(400);
    expect(r.body.field).toBe(field);
    expect(r.body.error).toContain(field);
    expect((await t.api('GET', '/api/schedules/refused')).status).toBe(404);
  });
});
