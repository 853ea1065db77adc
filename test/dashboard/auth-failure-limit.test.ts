import { describe, expect, it } from 'vitest';
import {
  BASIC,
  BEARER,
  capturingLogger,
  PASSWORD,
  raw,
  startTestDashboard,
  type TestDashboard,
  TOKEN,
  USER,
} from './harness.js';

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** A dashboard that allows 3 failed attempts per client a minute, logging into `log`. */
async function limited(
  options: Parameters<typeof startTestDashboard>[0] = {},
): Promise<{ t: TestDashboard; log: ReturnType<typeof capturingLogger> }> {
  const log = capturingLogger();
  const t = await startTestDashboard({
    authFailureLimit: 3,
    authFailureWindowMs: 60_000,
    logger: log.logger,
    ...options,
  });
  return { t, log };
}

const failures = (log: ReturnType<typeof capturingLogger>) =>
  log.lines.filter((l) => l.msg === 'dashboard: authentication failed');
const refusals = (log: ReturnType<typeof capturingLogger>) =>
  log.lines.filter((l) => l.level === 40 && String(l.msg).includes('too many failed'));

function expectRetryAfter(value: string | string[] | undefined | null): void {
  const s = Number(value);
  expect(Number.isInteger(s) && s >= 1 && s <= 60, `Retry-After: ${String(value)}`).toBe(true);
}

describe('failed authentication is limited per client address (brute force)', () => {
  it('refuses bearer tokens with 429 after too many wrong ones, and logs once without the secret', async () => {
    const { t, log } = await limited();
    try {
      for (let i = 0; i < 3; i++) {
        const r = await t.api('GET', '/api/stats', undefined, { authorization: `Bearer guess-${i}-s3cret` });
        expect(r.status).toBe(401);
      }
      const res = await fetch(`${t.url}/api/stats`, { headers: { authorization: 'Bearer guess-3-s3cret' } });
      expect(res.status).toBe(429);
      expectRetryAfter(res.headers.get('retry-after'));
      expect(((await res.json()) as { error: string }).error).toContain('too many failed');
      // a limited client cannot tell a right guess from a wrong one
      expect((await t.api('GET', '/api/stats', undefined, BEARER)).status).toBe(429);
      expect((await t.api('GET', '/api/stats', undefined, BASIC)).status).toBe(429);
      for (let i = 0; i < 20; i++) {
        await t.api('POST', '/api/schedules', {}, { authorization: `Bearer more-${i}-s3cret` });
      }
      expect(failures(log).map((l) => [l.client, l.auth])).toEqual([
        ['127.0.0.1', 'bearer'],
        ['127.0.0.1', 'bearer'],
        ['127.0.0.1', 'bearer'],
      ]);
      expect(refusals(log)).toHaveLength(1);
      expect(refusals(log)[0]).toMatchObject({ client: '127.0.0.1', auth: 'bearer' });
      expect(log.text()).not.toContain('s3cret');
      expect(log.text()).not.toContain(TOKEN);
    } finally {
      await t.cleanup();
    }
  });

  it('refuses basic auth with 429 after too many wrong passwords', async () => {
    const { t, log } = await limited();
    try {
      for (let i = 0; i < 3; i++) {
        expect((await t.api('GET', '/api/stats', undefined, basic(USER, `pw-${i}-s3cret`))).status).toBe(401);
      }
      const r = await raw(`${t.url}/api/stats`, { headers: basic(USER, PASSWORD) });
      expect(r.status).toBe(429);
      expectRetryAfter(r.headers['retry-after']);
      expect(failures(log).map((l) => l.auth)).toEqual(['basic', 'basic', 'basic']);
      expect(refusals(log)).toHaveLength(1);
      expect(log.text()).not.toContain('s3cret');
      expect(log.text()).not.toContain(PASSWORD);
    } finally {
      await t.cleanup();
    }
  });

  it('refuses the sign-in form with 429 after too many wrong tokens; a signed-in session keeps working', async () => {
    const { t, log } = await limited({ user: '', password: '' });
    const signIn = (token: string) =>
      raw(`${t.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, next: '/' }).toString(),
      });
    try {
      const ok = await signIn(TOKEN);
      const session = String(ok.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
      expect(session).toMatch(/^bb_session=/);
      for (let i = 0; i < 3; i++) {
        const r = await signIn(`form-${i}-s3cret`);
        expect(r.status).toBe(303);
        expect(r.headers.location).toContain('failed=1');
      }
      const refused = await signIn(TOKEN);
      expect(refused.status).toBe(429);
      expectRetryAfter(refused.headers['retry-after']);
      expect(refused.headers['set-cookie']).toBeUndefined();
      expect(refused.body).toContain('Too many failed sign-ins');
      expect((await t.api('GET', '/api/stats', undefined, { cookie: session })).status).toBe(200);
      expect(failures(log).map((l) => l.auth)).toEqual(['form', 'form', 'form']);
      expect(refusals(log)).toHaveLength(1);
      expect(log.text()).not.toContain('s3cret');
    } finally {
      await t.cleanup();
    }
  });

  it('does not count requests without credentials, nor successful ones', async () => {
    const { t } = await limited();
    try {
      for (let i = 0; i < 6; i++) {
        expect((await t.api('GET', '/api/stats', undefined, {})).status).toBe(401);
        expect((await t.api('GET', '/api/stats', undefined, BEARER)).status).toBe(200);
        expect((await t.api('GET', '/api/stats', undefined, BASIC)).status).toBe(200);
      }
    } finally {
      await t.cleanup();
    }
  });
});
