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
 * bearer token are exempt: browsers never attach one on their own. Bull Board's writes follow
 * `boardMiddleware()`: the same, except that a same-origin `Origin` or `Sec-Fetch-Site` can stand
 * in for the token, which its UI does not send.
 */
export class Csrf {
  constructor(
    private readonly auth: Auth,
    /** The path of the CSRF cookie for a request (the dashboard's public base). */
    private readonly cookiePath: (req: Request) => string,
  ) {}

  /** The request's token, issuing a cookie with a new one when it has none (or a forged one). */
  token(req: Request, res: Response): string {
    const current = cookies(req)[CSRF_COOKIE];
    if (current !== undefined && this.auth.verify('csrf', current)) return current;
    const fresh = this.auth.sign('csrf', `c-${randomBytes(16).toString('base64url')}`);
    res.cookie(CSRF_COOKIE, fresh, { path: this.cookiePath(req), sameSite: 'strict', httpOnly: false });
    return fresh;
  }

  /** For the dashboard's own routes: a write needs the token, and a same-host `Origin` when it sends one. */
  middleware(): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) => {
      if (SAFE_METHODS.has(req.method) || req.bullbeatAuth === 'bearer') {
        next();
        return;
      }
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== 'null' && hostOf(origin) !== req.headers.host) {
        res.status(403).json({ error: `csrf: cross-origin request from ${origin} refused` });
        return;
      }
      if (!this.tokenSent(req)) {
        res.status(403).json({
          error: `csrf: missing or wrong token (send the ${CSRF_COOKIE} cookie's value in the X-CSRF-Token header, or use a bearer token)`,
        });
        return;
      }
      next();
    };
  }

  /**
   * For Bull Board's mount, whose UI cannot send the token: a write must prove it comes from this
   * origin by an `Origin` naming this host, or `Sec-Fetch-Site: same-origin`, or the token as above.
   * Cross-site ones (by either header) are refused even with a token; bearer requests are exempt.
   */
  boardMiddleware(): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) => {
      if (SAFE_METHODS.has(req.method) || req.bullbeatAuth === 'bearer') {
        next();
        return;
      }
      const origin = req.headers.origin;
      const site = req.headers['sec-fetch-site'];
      const sameHost = origin !== undefined && origin !== 'null' && hostOf(origin) === req.headers.host;
      const crossOrigin = origin !== undefined && origin !== 'null' && !sameHost;
      const crossSite = typeof site === 'string' && site !== 'same-origin' && site !== 'none';
      if (crossOrigin || crossSite) {
        res.status(403).json({
          error: `csrf: cross-origin request refused (Origin ${origin ?? '-'}, Sec-Fetch-Site ${site ?? '-'})`,
        });
        return;
      }
      if (!sameHost && site !== 'same-origin' && !this.tokenSent(req)) {
        res.status(403).json({
          error:
            'csrf: a write to Bull Board needs an Origin naming this host, Sec-Fetch-Site: same-origin, ' +
            `the ${CSRF_COOKIE} cookie's value in the X-CSRF-Token header, or a bearer token`,
        });
        return;
      }
      next();
    };
  }

  /** True when the request sends back a token of this process equal to its CSRF cookie. */
  private tokenSent(req: Request): boolean {
    const cookie = cookies(req)[CSRF_COOKIE];
    const body = req.body as Record<string, unknown> | undefined;
    const sent =
      req.get(CSRF_HEADER) ?? (typeof body?.[CSRF_FIELD] === 'string' ? body[CSRF_FIELD] : undefined);
    return (
      cookie !== undefined &&
      sent !== undefined &&
      this.auth.verify('csrf', cookie) !== undefined &&
      safeEqual(cookie, sent)
    );
  }
}

/** The `host[:port]` of an `Origin` header, or undefined when it is not a URL. */
export function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}
