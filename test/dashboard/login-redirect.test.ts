import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sameOriginPath } from '../../dashboard/same-origin-path.js';
import { BEARER, raw, startTestDashboard, type TestDashboard, TOKEN } from './harness.js';

/** `next` values that would send a browser to another site, as a form field value (before encoding). */
const ATTACKS = [
  '//evil.example/x',
  '/\\evil.example/x',
  '\\/evil.example/x',
  '\\\\evil.example/x',
  'https://evil.example/x',
  'javascript:alert(1)',
  '/%5Cevil.example/x',
  '/%5cevil.example/x',
  '/%2F/evil.example/x',
  '/\t/evil.example/x',
  '/\n/evil.example/x',
  '\t//evil.example/x',
  ' //evil.example/x',
  '/%09/evil.example/x',
  '/../..//evil.example/x',
  'evil.example/x',
  '',
];

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe('the sign-in form redirects only to paths of this dashboard (open redirect)', () => {
  let t: TestDashboard;
  beforeAll(async () => {
    t = await startTestDashboard({ user: '', password: '' });
  });
  afterAll(async () => {
    await t.cleanup();
  });

  const signIn = (token: string, next: string) =>
    raw(`${t.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ token, next }),
    });

  it('sends a signed-in browser home, never to another origin, whatever `next` says', async () => {
    for (const next of ATTACKS) {
      const r = await signIn(TOKEN, next);
      expect(r.status, JSON.stringify(next)).toBe(303);
      expect(r.headers.location, JSON.stringify(next)).toBe('/');
    }
  });

  it('keeps `next` home after a wrong token too', async () => {
    const r = await signIn('wrong', '/\\evil.example/x');
    expect(r.headers.location).toBe('/login?failed=1&next=%2F');
  });

  it('keeps a same-origin `next`, query included', async () => {
    const r = await signIn(TOKEN, '/schedules/nightly?tab=runs');
    expect(r.headers.location).toBe('/schedules/nightly?tab=runs');
  });

  it('renders the form with a safe `next` only', async () => {
    const page = await raw(`${t.url}/login?next=${encodeURIComponent('/\\evil.example/x')}`);
    expect(page.body).toContain('<input type="hidden" name="next" value="/">');
  });

  it('sends a schedule action back to this dashboard only', async () => {
    await t.api('POST', '/api/schedules', {
      name: 'back-target',
      trigger: { type: 'interval', seconds: 60 },
    });
    const page = await fetch(`${t.url}/`, { headers: BEARER });
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const csrf = decodeURIComponent(cookie.slice('bb_csrf='.length));
    for (const back of ['/\\evil.example/x', '//evil.example/x', '/%5Cevil.example/x']) {
      const r = await raw(`${t.url}/schedules/back-target/resume`, {
        method: 'POST',
        headers: { ...BEARER, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ back, _csrf: csrf }),
      });
      expect(r.status, back).toBe(303);
      expect(r.headers.location, back).toBe('/?done=resume&name=back-target');
    }
    await t.api('DELETE', '/api/schedules/back-target');
  });
});

describe('sameOriginPath', () => {
  it('accepts only paths under the mount path, resolved', () => {
    expect(sameOriginPath('/ops/schedules/a?b=1#c', '/ops')).toBe('/ops/schedules/a?b=1#c');
    expect(sameOriginPath('/ops/', '/ops')).toBe('/ops/');
    expect(sameOriginPath('/other', '/ops')).toBe('/ops/');
    expect(sameOriginPath('/ops/../evil', '/ops')).toBe('/ops/');
    expect(sameOriginPath('/opsx/', '/ops')).toBe('/ops/');
    expect(sameOriginPath(undefined, '/ops')).toBe('/ops/');
    expect(sameOriginPath(['/ops/'], '/ops')).toBe('/ops/');
    for (const next of ATTACKS) expect(sameOriginPath(next, ''), JSON.stringify(next)).toBe('/');
    for (const next of ATTACKS) expect(sameOriginPath(`/ops${next}`, '/ops').startsWith('/ops/')).toBe(true);
  });
});
