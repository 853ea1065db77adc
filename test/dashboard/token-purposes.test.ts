import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC, BEARER, PASSWORD, startTestDashboard, type TestDashboard, TOKEN, USER } from './harness.js';

// Each token the dashboard hands out or accepts has one purpose: the session cookie signs a browser
// in, the CSRF token proves a write came from one of its pages, the bearer token is the configured
// secret, the password is basic auth's. Each kind is tried in each role; only its own role accepts it.

type Kind = 'session' | 'csrf' | 'bearer' | 'password';
type Role =
  | 'session cookie (read)'
  | 'session cookie (write)'
  | 'bearer header'
  | 'basic password'
  | 'csrf token';

describe('dashboard tokens are not interchangeable', () => {
  let t: TestDashboard;
  const tokens = {} as Record<Kind, string>;
  let csrfCookie: string;

  beforeAll(async () => {
    t = await startTestDashboard();
    const login = await fetch(`${t.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${encodeURIComponent(TOKEN)}&next=/`,
      redirect: 'manual',
    });
    const session = /bb_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
    expect(session).toBeDefined();
    tokens.session = decodeURIComponent(session!);
    const page = await fetch(`${t.url}/`, { headers: { cookie: `bb_session=${session}` } });
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1];
    expect(csrf).toBeDefined();
    tokens.csrf = csrf!;
    csrfCookie = `bb_csrf=${encodeURIComponent(csrf!)}`;
    tokens.bearer = TOKEN;
    tokens.password = PASSWORD;
    const created = await t.api('POST', '/api/schedules', {
      name: 'target',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 3600 },
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await t.cleanup();
  });

  /** The status of a request that presents `value` in `role` (everything else it needs is valid). */
  async function tryAs(role: Role, value: string): Promise<number> {
    const v = encodeURIComponent(value);
    switch (role) {
      case 'session cookie (read)':
        return (await t.api('GET', '/api/schedules', undefined, { cookie: `bb_session=${v}` })).status;
      case 'session cookie (write)':
        return (
          await t.api('POST', '/api/schedules/target/resume', undefined, {
            cookie: `bb_session=${v}; ${csrfCookie}`,
            'x-csrf-token': tokens.csrf,
          })
        ).status;
      case 'bearer header':
        return (await t.api('GET', '/api/schedules', undefined, { authorization: `Bearer ${value}` })).status;
      case 'basic password': {
        const basic = Buffer.from(`${USER}:${value}`).toString('base64');
        return (await t.api('GET', '/api/schedules', undefined, { authorization: `Basic ${basic}` })).status;
      }
      case 'csrf token':
        return (
          await t.api('POST', '/api/schedules/target/resume', undefined, {
            ...BASIC,
            cookie: `bb_csrf=${v}`,
            'x-csrf-token': value,
          })
        ).status;
    }
  }

  const OWN: Record<Role, Kind> = {
    'session cookie (read)': 'session',
    'session cookie (write)': 'session',
    'bearer header': 'bearer',
    'basic password': 'password',
    'csrf token': 'csrf',
  };
  const REFUSED: Record<Role, number> = {
    'session cookie (read)': 401,
    'session cookie (write)': 401,
    'bearer header': 401,
    'basic password': 401,
    'csrf token': 403,
  };

  for (const role of Object.keys(OWN) as Role[]) {
    for (const kind of ['session', 'csrf', 'bearer', 'password'] as const) {
      const own = OWN[role] === kind;
      it(`a ${kind} token as the ${role}: ${own ? 'accepted' : 'refused'}`, async () => {
        expect(await tryAs(role, tokens[kind])).toBe(own ? 200 : REFUSED[role]);
      });
    }
  }

  it('a write with the bearer token still needs no CSRF token', async () => {
    expect((await t.api('POST', '/api/schedules/target/pause', undefined, BEARER)).status).toBe(200);
  });
});
