import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestDashboard, type TestDashboard } from './harness.js';

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  rawPath?: string;
  handle?: { stack?: Layer[] };
}

/** Every route under a router's stack as `METHOD /path`, mounted routers included. */
function routesOf(stack: readonly Layer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const path = `${prefix}${layer.route.path}`;
      return Object.keys(layer.route.methods)
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`);
    }
    const inner = layer.handle?.stack;
    if (!inner) return [];
    const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
    return routesOf(inner, `${prefix}${mount}`);
  });
}

/**
 * Every JSON API route the dashboard app answers, whichever router holds it, as `METHOD /path`
 * relative to `/api` (Express's `:id` written as OpenAPI's `{id}`).
 */
function realRoutes(app: unknown): string[] {
  const stack = (app as { router: { stack: Layer[] } }).router.stack;
  return (
    routesOf(stack)
      .filter((r) => / \/api\//.test(r))
      // an escaped colon is a custom method (`/schedules:batch`), not a parameter
      .map((r) =>
        r
          .replace(' /api/', ' /')
          .replace(/(?<!\\):(\w+)/g, '{$1}')
          .replace(/\\:/g, ':'),
      )
      .sort()
  );
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

  it('documents exactly the JSON API routes the dashboard app has, in every router (paths and methods)', () => {
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      )
      .sort();
    const real = realRoutes(t.server.app);
    expect(real).toContain('GET /agenda');
    expect(documented).toEqual(real);
  });

  it('real responses match the documented shapes', async () => {
    const created = await t.api('POST', '/api/schedules', {
      name: 'contract-job',
      trigger: { type: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Paris' },
      queue: t.queue,
    });
    expect(created.status).toBe(201);
    responseSchema('/schedules', 'post', '201').parse(created.body);
    await t.scheduler.calendars.define('contract-cal', {
      rules: ['weekends'],
      dates: ['2026-12-25 Christmas'],
    });
    const checks: [string, string, string][] = [
      ['/api/schedules', '/schedules', 'get'],
      ['/api/schedules/contract-job', '/schedules/{id}', 'get'],
      ['/api/schedules/contract-job/runs', '/schedules/{id}/runs', 'get'],
      ['/api/schedules/contract-job/history', '/schedules/{id}/history', 'get'],
      ['/api/stats', '/stats', 'get'],
      ['/api/preview?cron=*/5+*+*+*+*&tz=Asia/Tokyo', '/preview', 'get'],
      ['/api/queues', '/queues', 'get'],
      ['/api/schedules/contract-job/why', '/schedules/{id}/why', 'get'],
      ['/api/agenda?next=7d', '/agenda', 'get'],
      ['/api/fleet', '/fleet', 'get'],
      ['/api/groups', '/groups', 'get'],
      ['/api/calendars', '/calendars', 'get'],
      ['/api/calendars/contract-cal', '/calendars/{name}', 'get'],
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
    const noCalendar = await t.api('GET', '/api/calendars/nope');
    expect(noCalendar.status).toBe(404);
    responseSchema('/calendars/{name}', 'get', '404').parse(noCalendar.body);
    const removed = await t.api('DELETE', '/api/schedules/contract-job');
    responseSchema('/schedules/{id}', 'delete', '200').parse(removed.body);
    // a removed schedule's trail is still there to investigate the remove
    const history = await t.api('GET', '/api/schedules/contract-job/history');
    expect(history.status).toBe(200);
    responseSchema('/schedules/{id}/history', 'get', '200').parse(history.body);
    const none = await t.api('GET', '/api/schedules/never-was/history');
    expect(none.status).toBe(404);
    responseSchema('/schedules/{id}/history', 'get', '404').parse(none.body);
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
