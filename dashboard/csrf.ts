import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type Auth, cookies, safeEqual } from './auth.js';

export const CSRF_COOKIE = 'bb_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = '_csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF protection for state-changing browser requests: a signed double-submit token. Pages get the
 * token in a cookie and in a `<meta>`/hidden field; a POST/PUT/PATCH/DELETE must send it back in the
 * `X-CSRF-Token` header or the `_csrf` form field, equal to the cookie and signed by this process.
 * A request whose `Origin` names another host is refused outright. Requests authenticated with a
 * bearer token are exempt: browsers never attach one on their own.
 */
export class Csrf {
  constructor(
    private readonly auth: Auth,
    private readonly cookiePath: string,
  ) {}

  /** The request's token, issuing a cookie with a new one when it has none (or a forged one). */
  token(req: Request, res: Response): string {
    const current = cookies(req)[CSRF_COOKIE];
    if (current !== undefined && this.auth.verify(current)) return current;
    const fresh = this.auth.sign(`c-${randomBytes(16).toString('base64url')}`);
    res.cookie(CSRF_COOKIE, fresh, { path: this.cookiePath, sameSite: 'strict', httpOnly: false });
    return fresh;
  }

  middleware(): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) => {
      if (SAFE_METHODS.has(req.method) || req.bullbeatAuth === 'bearer') {
        next();
        return;
      }
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== 'null') {
        let host: string | undefined;
        try {
          host = new URL(origin).host;
        } catch {
          host = undefined;
        }
        if (host !== req.headers.host) {
          res.status(403).json({ error: `csrf: cross-origin request from ${origin} refused` });
          return;
        }
      }
      const cookie = cookies(req)[CSRF_COOKIE];
      const body = req.body as Record<string, unknown> | undefined;
      const sent =
        req.get(CSRF_HEADER) ?? (typeof body?.[CSRF_FIELD] === 'string' ? body[CSRF_FIELD] : undefined);
      if (
        cookie === undefined ||
        sent === undefined ||
        !this.auth.verify(cookie) ||
        !safeEqual(cookie, sent)
      ) {
        res.status(403).json({
          error: `csrf: missing or wrong token (send the ${CSRF_COOKIE} cookie's value in the X-CSRF-Token header, or use a bearer token)`,
        });
        return;
      }
      next();
    };
  }
}
