import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiRoutes } from '../../dashboard/api-routes.js';
import type { DashboardContext } from '../../dashboard/dashboard-context.js';
import { startTestDashboard, type TestDashboard } from './harness.js';

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every route of the API router as `METHOD /path` (Express's `:id` written as OpenAPI's `{id}`). */
function realRoutes(): string[] {
  const router = apiRoutes({ scheduler: {} } as unknown as DashboardContext) as unknown as {
    stack: { route?: { path: string; methods: Record<string, boolean> } }[];
  };
  return router.stack
    .flatMap((layer) =>
      layer.route
        ? Object.keys(layer.route.methods)
            .filter((m) => METHODS.includes(m))
            .map((m) => `${m.toUpperCase()} ${layer.route?.path.replace(/:(\w+)/g, '{$1}')}`)
        : [],
    )
    .sort();
}

describe('the JSON API and its OpenAPI description', () => {
  let t: TestDashboard;
  let docStatus = 0;
  let doc: { paths: Record<string, Record<string, Json>>; openapi: string; servers: { url: string }[] };

  /** The documented schema of a response, as zod (the document is the contract, not our zod schemas). */
  const responseSchema = (path: string, method: string, status: string) => {
    const op = doc.paths[path]?.[method] as { responses: Record<string, Json> };
    const content = op.responses[status]?.content as Record<string, { schema: Json }>;
    return z.fromJSONSchema(content['application/json']?.schema as never);
  };

  beforeAll(async () => {
    t = await startTestDashboard();
    const r = await t.api('GET', '/api/openapi.json');
    docStatus = r.status;
    doc = r.body;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it('is OpenAPI 3.1, served by the dashboard, relative to where it is mounted', () => {
    expect(docStatus).toBe(200);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: './api' }]);
  });

  it('documents exactly the routes the API router has (paths and methods)', () => {
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      )
      .sort();
    expect(documented).toEqual(realRoutes());
  });

  it('real responses match the documented shapes', async () => {
    const created = await t.api('POST', '/api/schedules', {
      name: 'contract-job',
      trigger: { type: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Paris' },
      queue: t.queue,
    });
    expect(created.status).toBe(201);
    responseSchema('/schedules', 'post', '201').parse(created.body);
    const checks: [string, string, string][] = [
      ['/api/schedules', '/schedules', 'get'],
      ['/api/schedules/contract-job', '/schedules/{id}', 'get'],
      ['/api/schedules/contract-job/runs', '/schedules/{id}/runs', 'get'],
      ['/api/stats', '/stats', 'get'],
      ['/api/preview?cron=*/5+*+*+*+*&tz=Asia/Tokyo', '/preview', 'get'],
      ['/api/queues', '/queues', 'get'],
    ];
    for (const [url, path, method] of checks) {
      const r = await t.api('GET', url);
      expect(r.status, url).toBe(200);
      responseSchema(path, method, '200').parse(r.body);
    }
    const paused = await t.api('POST', '/api/schedules/contract-job/pause');
    responseSchema('/schedules/{id}/pause', 'post', '200').parse(paused.body);
    const missing = await t.api('GET', '/api/schedules/nope');
    expect(missing.status).toBe(404);
    responseSchema('/schedules/{id}', 'get', '404').parse(missing.body);
    const removed = await t.api('DELETE', '/api/schedules/contract-job');
    responseSchema('/schedules/{id}', 'delete', '200').parse(removed.body);
  });

  it('/api/stats is camelCase like the rest of the API', async () => {
    const stats = (await t.api('GET', '/api/stats')).body as Json;
    expect(Object.keys(stats).sort()).toEqual(
      [
        'jobsTotal',
        'jobsActive',
        'jobsPaused',
        'jobsCompleted',
        'jobsErrored',
        'runs',
        'errors',
        'skipped',
        'missed',
        'coalesced',
        'erroredTotal',
        'uptime',
      ].sort(),
    );
  });

  it('a standalone dashboard (no scheduler running in its process) reports uptime null, not 0', async () => {
    expect((await t.api('GET', '/api/stats')).body.uptime).toBeNull();
  });

  it('a body without a trigger: a 400 that says what to give, not the schema library', async () => {
    const r = await t.api('POST', '/api/schedules', { name: 'no-trigger' });
    expect(r.status).toBe(400);
    expect(r.body.field).toBe('trigger');
    expect(r.body.error).toBe(
      'trigger: required: a built-in trigger, e.g. { "type": "cron", "expression": "0 9 * * *" }, { "type": "interval", "seconds": 60 } or { "type": "date", "at": "2030-01-01T09:00:00Z" }',
    );
    expect(r.body.error).not.toMatch(/nonoptional|Invalid input/);
  });
});
