import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDashboard, type TestDashboard } from './harness.js';

// What POST /api/schedules refuses, each naming the field at fault.

/** `{ a: { a: ... { a: 1 } } }`, `depth` objects deep. */
function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe('POST /api/schedules: input refused at the door', () => {
  let t: TestDashboard;
  beforeAll(async () => {
    t = await startTestDashboard();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  const create = (over: Record<string, unknown>) =>
    t.api('POST', '/api/schedules', {
      name: 'door',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
      ...over,
    });

  /** A create body whose `field` is `depth` objects deep, as text (too deep for JSON.stringify here). */
  const deepBody = (field: 'data' | 'args', depth: number) => {
    const value = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const trigger = '{"type":"interval","seconds":60}';
    return `{"name":"door","queue":"${t.queue}","trigger":${trigger},"${field}":${field === 'args' ? `[${value}]` : value}}`;
  };

  it('deeply nested data is a 400 naming data (not args); nested args one naming args', async () => {
    const data = await t.api('POST', '/api/schedules', deepBody('data', 20_000));
    expect(data.status).toBe(400);
    expect(data.body.field).toBe('data');
    expect(data.body.error).toMatch(/^data: .*nested/);
    const args = await t.api('POST', '/api/schedules', deepBody('args', 20_000));
    expect(args.status).toBe(400);
    expect(args.body.field).toBe('args');
    expect((await t.api('GET', '/api/schedules/door')).status).toBe(404);
  });

  it('an interval under a millisecond is a 400 naming the value and the minimum, not rounded to 1 ms', async () => {
    for (const seconds of [0.0005, 0.0009]) {
      const r = await create({ id: 'sub-ms', trigger: { type: 'interval', seconds } });
      expect(r.status, String(seconds)).toBe(400);
      expect(r.body.field).toBe('trigger.seconds');
      expect(r.body.error).toContain(`got ${seconds}`);
      expect(r.body.error).toContain('at least 0.001');
    }
    expect((await create({ id: 'one-ms', trigger: { type: 'interval', seconds: 0.001 } })).status).toBe(201);
    await t.api('DELETE', '/api/schedules/one-ms');
  });

  it('a date in the past is a 400 naming trigger.at unless the request says allowPast (as --allow-past)', async () => {
    const past = { type: 'date', at: '2019-03-01T09:00:00Z' };
    const refused = await create({ id: 'late', trigger: past });
    expect(refused.status).toBe(400);
    expect(refused.body.field).toBe('trigger.at');
    expect(refused.body.error).toMatch(
      /^trigger\.at: 2019-03-01T09:00:00\.000Z is in the past \(by \d+ days\): send "allowPast": true to run it once, now$/,
    );
    expect((await t.api('GET', '/api/schedules/late')).status).toBe(404);
    const allowed = await create({ id: 'late', trigger: past, allowPast: true });
    expect(allowed.status).toBe(201);
    const future = await create({ id: 'soon', trigger: { type: 'date', at: Date.now() + 3_600_000 } });
    expect(future.status).toBe(201);
    const patched = await t.api('PATCH', '/api/schedules/soon', { trigger: past });
    expect(patched).toMatchObject({ status: 400, body: { field: 'trigger.at' } });
    const patchedOk = await t.api('PATCH', '/api/schedules/soon', { trigger: past, allowPast: true });
    expect(patchedOk.status).toBe(200);
    // the edit form sends the stored (now past) date back with a new name: not a new past date
    const renamed = await t.api('PATCH', '/api/schedules/soon', { trigger: past, name: 'renamed' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const notDate = await create({ id: 'x', allowPast: true });
    expect(notDate).toMatchObject({ status: 400, body: { field: 'allowPast' } });
  });

  it('data nested within the limit is kept as given', async () => {
    const ok = await create({ id: 'nested-ok', data: nested(50) });
    expect(ok.status).toBe(201);
    expect(ok.body.definition.data).toEqual(nested(50));
  });
});
