import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ResolvedDashboardOptions } from './dashboard-options.js';
import { FailureLimiter } from './failure-limiter.js';

/** How a request proved who it is; `bearer` requests are exempt from CSRF checks. */
export type AuthKind = 'bearer' | 'basic' | 'session' | 'open';

declare global {
  namespace Express {
    interface Request {
      /** Set by the dashboard's auth middleware. */
      bullbeatAuth?: AuthKind;
    }
  }
}

export const SESSION_COOKIE = 'bb_session';

/** Client addresses whose failed attempts are tracked at most (about 100 B each). */
const MAX_TRACKED_CLIENTS = 10_000;

/** The address a request came from: `req.ip`, which honours the app's `trust proxy` setting. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** What a client past its failed-attempt limit is told. */
function tooManyMessage(client: string, waitMs: number): string {
  return `too many failed authentication attempts from ${client}: retry in ${Math.ceil(waitMs / 1000)} s`;
}

/** Constant-time string comparison (both sides hashed first, so lengths leak nothing). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/** Cookies of a request, parsed (the dashboard needs only its own two). */
export function cookies(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    try {
      out[key] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // a cookie that is not ours and not valid percent-encoding: ignore it
    }
  }
  return out;
}

/**
 * What a signed token is for. Each purpose signs with its own key, derived from the process secret,
 * so a token of one purpose never verifies as another: a CSRF token (readable by the page's scripts)
 * is not a session, and a session is not a CSRF token.
 */
export type TokenPurpose = 'session' | 'csrf';

/**
 * Authentication: a bearer token, basic auth, or a session cookie handed out by the login form
 * (for token-only setups, so a browser can sign in with the token). Sessions are stateless: the
 * cookie is `<random>.<HMAC>` keyed by a per-process secret, so they end when the process restarts.
 */
export class Auth {
  /** The signing key of each token purpose: HMAC(random per-process secret, purpose). */
  private readonly keys: Record<TokenPurpose, Buffer>;

  /** Failed attempts per client address (bearer, basic and the sign-in form share one count). */
  readonly limiter: FailureLimiter;

  constructor(private readonly options: ResolvedDashboardOptions) {
    const secret = randomBytes(32);
    const keyOf = (purpose: TokenPurpose) =>
      createHmac('sha256', secret).update(`bullbeat ${purpose}`).digest();
    this.keys = { session: keyOf('session'), csrf: keyOf('csrf') };
    this.limiter = new FailureLimiter({
      limit: options.authFailureLimit,
      windowMs: options.authFailureWindowMs,
      maxClients: MAX_TRACKED_CLIENTS,
      logger: options.logger,
    });
  }

  get basic(): boolean {
    return this.options.user !== undefined;
  }

  /** `<value>.<HMAC>` with the key of `purpose`. */
  sign(purpose: TokenPurpose, value: string): string {
    return `${value}.${createHmac('sha256', this.keys[purpose]).update(value).digest('base64url')}`;
  }

  /** The value of a token signed for `purpose` by this process, or undefined (forged, or another purpose). */
  verify(purpose: TokenPurpose, signed: string | undefined): string | undefined {
    if (!signed) return undefined;
    const dot = signed.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const value = signed.slice(0, dot);
    return safeEqual(this.sign(purpose, value), signed) ? value : undefined;
  }

  /** A new session cookie value, for a browser that proved it knows the token or password. */
  newSession(): string {
    return this.sign('session', `s-${randomBytes(16).toString('base64url')}`);
  }

  /** True when `secret` is the token, or the password of basic auth (the login form takes either). */
  checkSecret(user: string, secret: string): boolean {
    const { token, user: u, password } = this.options;
    const tokenOk = token !== undefined && safeEqual(secret, token);
    const basicOk =
      u !== undefined && password !== undefined && safeEqual(user, u) && safeEqual(secret, password);
    return tokenOk || basicOk;
  }

  /** Who the request is, or undefined when it carries no valid credentials. */
  identify(req: Request): AuthKind | undefined {
    if (this.options.open) return 'open';
    const header = req.headers.authorization ?? '';
    const { token, user, password } = this.options;
    if (header.startsWith('Bearer ')) {
      return token !== undefined && safeEqual(header.slice(7).trim(), token) ? 'bearer' : undefined;
    }
    if (header.startsWith('Basic ')) {
      if (user === undefined || password === undefined) return undefined;
      const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return undefined;
      const okUser = safeEqual(decoded.slice(0, colon), user);
      const okPassword = safeEqual(decoded.slice(colon + 1), password);
      return okUser && okPassword ? 'basic' : undefined;
    }
    return this.verify('session', cookies(req)[SESSION_COOKIE]) ? 'session' : undefined;
  }

  /** The kind of secret the request's `Authorization` header presents, if any (right or wrong). */
  presented(req: Request): 'bearer' | 'basic' | undefined {
    const header = req.headers.authorization ?? '';
    if (header.startsWith('Bearer ')) return 'bearer';
    if (header.startsWith('Basic ')) return 'basic';
    return undefined;
  }

  /**
   * Express middleware: 401 without valid credentials. Browsers asking for a page are sent to the
   * login form (token-only setups, at `loginUrl(req)`) or get a basic-auth challenge; API clients get JSON. A client
   * past its failed-attempt limit gets 429 for any bearer or basic credentials, right ones included
   * (a valid session cookie still works: it cannot be guessed).
   */
  middleware(loginUrl: (req: Request) => string): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) => {
      const presented = this.options.open ? undefined : this.presented(req);
      const client = clientAddress(req);
      if (presented !== undefined) {
        const waitMs = this.limiter.retryAfterMs(client);
        if (waitMs > 0) {
          res
            .status(429)
            .set('Retry-After', String(Math.ceil(waitMs / 1000)))
            .json({ error: tooManyMessage(client, waitMs) });
          return;
        }
      }
      const kind = this.identify(req);
      if (kind !== undefined) {
        req.bullbeatAuth = kind;
        next();
        return;
      }
      if (presented !== undefined) this.limiter.fail(client, presented);
      if (this.basic) res.setHeader('WWW-Authenticate', 'Basic realm="bullbeat", charset="UTF-8"');
      const wantsHtml = req.method === 'GET' && (req.headers.accept ?? '').includes('text/html');
      if (wantsHtml && !this.basic) {
        res.redirect(303, loginUrl(req));
        return;
      }
      res.status(401).json({ error: 'unauthorized: send a bearer token or basic-auth credentials' });
    };
  }
}
