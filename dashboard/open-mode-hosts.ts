import type { NextFunction, Request, RequestHandler, Response } from 'express';

const BRACKETED = /^(\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i;
const NAMED = /^([a-z0-9._-]+)(?::(\d{1,5}))?$/i;
const IPV4_LOOPBACK = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The host name of a `Host` header (lowercase, IPv6 in brackets, port dropped), or undefined when malformed. */
export function hostName(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = BRACKETED.exec(header) ?? NAMED.exec(header);
  return m?.[1]?.toLowerCase();
}

/** `localhost`, `127.x.x.x` or `[::1]`. */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name === '[::1]') return true;
  const v4 = IPV4_LOOPBACK.exec(name);
  return v4?.slice(1).every((octet) => Number(octet) <= 255) === true;
}

/** True when `name` can be listed in `allowedHosts`: a DNS name or an address, without port or path. */
export function isHostName(name: string): boolean {
  const m = BRACKETED.exec(name) ?? NAMED.exec(name);
  return m !== null && m[2] === undefined;
}

/**
 * For a dashboard running open (no credentials): refuse, with 403, every request whose `Host` is
 * not a loopback name or one of `allowed`. A page on another site that rebinds its own DNS name to
 * 127.0.0.1 (DNS rebinding) is then same-origin with nothing here: its requests carry its own name.
 */
export function openModeHosts(allowed: readonly string[]): RequestHandler {
  const extra = new Set(allowed.map((h) => h.toLowerCase()));
  return (req: Request, res: Response, next: NextFunction) => {
    const name = hostName(req.headers.host);
    if (name !== undefined && (isLoopbackName(name) || extra.has(name))) {
      next();
      return;
    }
    res.status(403).json({
      error:
        `host ${JSON.stringify(req.headers.host ?? '')} refused: a dashboard running open (without credentials) ` +
        'answers only loopback hosts (localhost, 127.0.0.1, [::1]); list other names in allowedHosts ' +
        '(BULLBEAT_DASHBOARD_ALLOWED_HOSTS) or set credentials',
    });
  };
}
