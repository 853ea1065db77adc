import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/scheduler/index.js';
import { BASIC, BEARER, raw, startTestDashboard, type TestDashboard, TOKEN } from './harness.js';

describe('Bull Board writes are held to the dashboard’s CSRF rule', () => {
  let t: TestDashboard;
  let session: string;
  let csrf: { cookie: string; token: string };
  beforeAll(async () => {
    t = await startTestDashboard();
    const signedIn = await raw(`${t.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, next: '/' }).toString(),
    });
    session = String(signedIn.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
    expect(session).toMatch(/^bb_session=/);
    const page = await raw(`${t.url}/`, { headers: { cookie: session } });
    const cookie = String(page.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
    csrf = { cookie, token: decodeURIComponent(cookie.slice('bb_csrf='.length)) };
  });
  beforeEach(async () => {
    await internalsOf(t.scheduler).queue(t.queue).resume();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  const put = (action: 'pause' | 'resume', headers: Record<string, string>) =>
    raw(`${t.url}/admin/queues/api/queues/${t.queue}/${action}`, { method: 'PUT', headers });
  const paused = () => internalsOf(t.scheduler).queue(t.queue).isPaused();

  it('refuses a write with a session cookie or basic auth and no proof of origin (403)', async () => {
    const noProof: Record<string, string>[] = [
      { cookie: session },
      BASIC,
      { cookie: session, origin: 'null' },
    ];
    for (const headers of noProof) {
      const r = await put('pause', headers);
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(r.body).error).toContain('csrf');
    }
    expect(await paused()).toBe(false);
  });

  it('refuses a write from another site', async () => {
    const crossSite: Record<string, string>[] = [
      { cookie: session, origin: 'https://evil.example' },
      { cookie: session, 'sec-fetch-site': 'cross-site' },
      { cookie: session, 'sec-fetch-site': 'same-site' },
      { cookie: session, origin: 'https://evil.example', 'x-csrf-token': csrf.token },
    ];
    for (const headers of crossSite) {
      expect((await put('pause', headers)).status, JSON.stringify(headers)).toBe(403);
    }
    expect(await paused()).toBe(false);
  });

  it('lets a write through with a same-origin Origin, Sec-Fetch-Site: same-origin, a CSRF token, or a bearer token', async () => {
    const origin = t.url;
    expect((await put('pause', { cookie: session, origin })).status).toBe(200);
    expect(await paused()).toBe(true);
    expect((await put('resume', { cookie: session, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect(await paused()).toBe(false);
    const withToken = { cookie: `${session}; ${csrf.cookie}`, 'x-csrf-token': csrf.token };
    expect((await put('pause', withToken)).status).toBe(200);
    expect(await paused()).toBe(true);
    expect((await put('resume', BEARER)).status).toBe(200);
    expect(await paused()).toBe(false);
  });
});
