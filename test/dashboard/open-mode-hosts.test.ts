import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from '../../dashboard/index.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { BEARER, raw, startTestDashboard, type TestDashboard } from './harness.js';

const OPEN = { token: '', user: '', password: '', open: true } as const;

describe('an open dashboard answers only loopback Host names (DNS rebinding)', () => {
  let t: TestDashboard;
  let port: number;
  beforeAll(async () => {
    t = await startTestDashboard(OPEN);
    port = t.server.port;
    await t.scheduler.schedule({ name: 'rebind-target', queue: t.queue }, new IntervalTrigger(60)).saved;
  });
  afterAll(async () => {
    await t.cleanup();
  });

  const get = (host: string, path = '/api/stats') => raw(`${t.url}${path}`, { headers: { host } });
  /** The cookie and header of a CSRF token that a page served under `host` hands out. */
  const csrf = async (host: string) => {
    const cookie = String((await get(host, '/')).headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
    return { cookie, 'x-csrf-token': decodeURIComponent(cookie.slice('bb_csrf='.length)) };
  };

  it('refuses any other Host with 403, reads and writes alike', async () => {
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `localhost.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `10.0.0.1:${port}`,
      `[::2]:${port}`,
      `[::1].evil.example:${port}`,
      `localhost:${port}@evil.example`,
    ]) {
      const r = await get(host);
      expect(r.status, host).toBe(403);
      expect(JSON.parse(r.body).error, host).toContain('loopback');
      expect((await get(host, '/')).status, host).toBe(403);
      // a rebinding page is same-origin with the dashboard: it could read a CSRF token and send it
      const pause = await raw(`${t.url}/api/schedules/rebind-target/pause`, {
        method: 'POST',
        headers: { host, origin: `http://${host}`, ...(await csrf(`localhost:${port}`)) },
      });
      expect(pause.status, host).toBe(403);
    }
    expect((await t.api('GET', '/api/schedules/rebind-target')).body.status).toBe('active');
    // the same write from a loopback name passes: the refusal above is the Host check
    const local = await raw(`${t.url}/api/schedules/rebind-target/pause`, {
      method: 'POST',
      headers: {
        host: `localhost:${port}`,
        origin: `http://localhost:${port}`,
        ...(await csrf(`localhost:${port}`)),
      },
    });
    expect(local.status).toBe(200);
  });

  it('answers localhost, 127.x.x.x and [::1], with or without the port', async () => {
    for (const host of [
      `localhost:${port}`,
      `LocalHost:${port}`,
      'localhost',
      `127.0.0.1:${port}`,
      `127.3.2.1:${port}`,
      `[::1]:${port}`,
      '[::1]',
    ]) {
      expect((await get(host)).status, host).toBe(200);
    }
  });
});

describe('Host names outside open mode and extra allowed hosts', () => {
  it('accepts any Host when credentials protect the dashboard', async () => {
    const t = await startTestDashboard();
    try {
      const r = await raw(`${t.url}/api/stats`, { headers: { ...BEARER, host: 'dashboard.example.com' } });
      expect(r.status).toBe(200);
    } finally {
      await t.cleanup();
    }
  });

  it('accepts the hosts listed in allowedHosts and BULLBEAT_DASHBOARD_ALLOWED_HOSTS when open', async () => {
    const t = await startTestDashboard({ ...OPEN, allowedHosts: ['dash.internal'] });
    const u = await startTestDashboard({
      ...OPEN,
      env: { BULLBEAT_DASHBOARD_ALLOWED_HOSTS: 'a.internal, B.internal' },
    });
    try {
      const at = (d: TestDashboard, host: string) => raw(`${d.url}/api/stats`, { headers: { host } });
      expect((await at(t, `dash.internal:${t.server.port}`)).status).toBe(200);
      expect((await at(t, 'DASH.internal')).status).toBe(200);
      expect((await at(t, 'other.internal')).status).toBe(403);
      expect((await at(t, `localhost:${t.server.port}`)).status).toBe(200);
      expect((await at(u, 'a.internal')).status).toBe(200);
      expect((await at(u, 'b.internal:80')).status).toBe(200);
      expect((await at(u, 'dash.internal')).status).toBe(403);
      for (const bad of ['http://dash.internal', 'dash.internal:8080', 'dash.internal/x']) {
        expect(() =>
          createDashboard({ scheduler: t.scheduler, ...OPEN, env: {}, allowedHosts: [bad] }),
        ).toThrow(/allowedHosts/);
      }
    } finally {
      await t.cleanup();
      await u.cleanup();
    }
  });
});
