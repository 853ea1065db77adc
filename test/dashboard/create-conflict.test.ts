import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { REDIS_URL } from '../redis-url.js';
import { quietLogger, startTestDashboard, type TestDashboard } from './harness.js';

// POST /api/schedules creates: an id already there is a conflict unless the request asks to replace
// it (as `schedule:add --replace`), and a schedule defined in code is never replaced from the API.

describe('POST /api/schedules with an id that exists', () => {
  let t: TestDashboard;
  let code: SchedulerManager;
  beforeAll(async () => {
    t = await startTestDashboard();
    code = new SchedulerManager({
      prefix: t.prefix,
      role: 'client',
      defaultQueue: t.queue,
      connection: REDIS_URL,
      logger: quietLogger(),
    });
    code.every(60, { id: 'from-code' })(async function fromCode() {});
    await code.start();
  });
  afterAll(async () => {
    await code.close();
    await t.cleanup();
  });

  const body = (over: Record<string, unknown> = {}) => ({
    name: 'report',
    id: 'taken',
    queue: t.queue,
    trigger: { type: 'interval', seconds: 60 },
    ...over,
  });

  it('answers 409 naming the id, and leaves the stored schedule as it was', async () => {
    expect((await t.api('POST', '/api/schedules', body())).status).toBe(201);
    const before = (await t.api('GET', '/api/schedules/taken')).body.definition;
    const again = await t.api('POST', '/api/schedules', body({ trigger: { type: 'interval', seconds: 5 } }));
    expect(again.status).toBe(409);
    expect(again.body.id).toBe('taken');
    expect(again.body.error).toContain('"taken" already exists');
    expect(again.body.error).toContain('"replace": true');
    expect((await t.api('GET', '/api/schedules/taken')).body.definition).toEqual(before);
  });

  it('replaces it when the request says "replace": true (200, the new definition)', async () => {
    const replaced = await t.api(
      'POST',
      '/api/schedules',
      body({ replace: true, trigger: { type: 'interval', seconds: 5 } }),
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body.definition.trigger).toMatchObject({ type: 'interval', seconds: 5 });
    const fresh = await t.api('POST', '/api/schedules', body({ id: 'fresh', replace: true }));
    expect(fresh.status).toBe(201);
  });

  it('never replaces a code schedule, even with "replace": true: 409 naming the id and source: code', async () => {
    const before = (await t.api('GET', '/api/schedules/from-code')).body;
    expect(before.source).toBe('code');
    for (const replace of [false, true]) {
      const r = await t.api('POST', '/api/schedules', body({ id: 'from-code', replace }));
      expect(r.status, `replace: ${replace}`).toBe(409);
      expect(r.body.id).toBe('from-code');
      expect(r.body.error).toContain('"from-code"');
      expect(r.body.error).toContain('source: code');
    }
    const after = (await t.api('GET', '/api/schedules/from-code')).body;
    expect(after.source).toBe('code');
    expect(after.definition).toEqual(before.definition);
  });

  it('refuses a replace that is not a boolean, naming the field', async () => {
    const r = await t.api('POST', '/api/schedules', body({ id: 'x', replace: 'yes' }));
    expect(r).toMatchObject({ status: 400, body: { field: 'replace' } });
  });
});
