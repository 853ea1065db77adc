import express, { type Request, type Response, Router } from 'express';
import { type Auth, clientAddress, SESSION_COOKIE } from './auth.js';
import { hostOf } from './csrf.js';
import { baseOf, cookiePathOf } from './mount-base.js';
import { sameOriginPath } from './same-origin-path.js';
import { loginPage } from './views/login-page.js';

/**
 * `GET /login` and `POST /login` (under the dashboard's base, `baseOf(req)`): the sign-in form of token-only setups. It hands out a session
 * cookie for the right token, redirects only to paths of this dashboard (`sameOriginPath`), and
 * counts wrong tokens against the client's failed-attempt limit (then 429, right token included).
 */
export function loginRoutes(auth: Auth): Router {
  const r = Router();
  const urlencoded = express.urlencoded({ extended: false, limit: '64kb' });
  const sendPage = (req: Request, res: Response, status: number, next: string, message?: string) => {
    res
      .status(status)
      .type('html')
      .send(loginPage(baseOf(req), next, message));
  };

  r.get('/login', (req, res) => {
    sendPage(
      req,
      res,
      200,
      sameOriginPath(req.query.next, baseOf(req)),
      req.query.failed === '1' ? 'Wrong token.' : undefined,
    );
  });

  r.post('/login', urlencoded, (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { token?: unknown; next?: unknown };
    const basePath = baseOf(req);
    const next = sameOriginPath(body.next, basePath);
    const client = clientAddress(req);
    const waitMs = auth.limiter.retryAfterMs(client);
    if (waitMs > 0) {
      const s = Math.ceil(waitMs / 1000);
      res.set('Retry-After', String(s));
      sendPage(req, res, 429, next, `Too many failed sign-ins from this address: try again in ${s} s.`);
      return;
    }
    const origin = req.headers.origin;
    const sameOrigin = origin === undefined || origin === 'null' || hostOf(origin) === req.headers.host;
    const token = typeof body.token === 'string' ? body.token : undefined;
    const ok = sameOrigin && token !== undefined && auth.checkSecret('', token);
    if (!ok) {
      if (sameOrigin && token !== undefined) auth.limiter.fail(client, 'form');
      res.redirect(303, `${basePath}/login?failed=1&next=${encodeURIComponent(next)}`);
      return;
    }
    res.cookie(SESSION_COOKIE, auth.newSession(), {
      httpOnly: true,
      sameSite: 'lax',
      path: cookiePathOf(req),
    });
    res.redirect(303, next);
  });

  return r;
}
