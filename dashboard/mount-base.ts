import type { NextFunction, Request, RequestHandler, Response } from 'express';

declare global {
  namespace Express {
    interface Request {
      /** The dashboard's public path for this request (`''` at the root), set by `mountBase()`. */
      bullbeatBase?: string;
      /** Where the host app mounted the dashboard (its `req.baseUrl` at the dashboard's entry). */
      bullbeatMount?: string;
    }
  }
}

const trimSlash = (path: string) => path.replace(/\/+$/, '');

/**
 * The dashboard's first middleware: records where it is mounted. Every link, redirect and cookie
 * path derives from `baseOf(req)`: the `basePath` option when given (a proxy in front strips a
 * prefix), else the mount path the host app chose (`app.use('/ops', dashboard)` → `/ops`), so one
 * dashboard can be mounted anywhere, even at several paths, without being told.
 */
export function mountBase(basePath: string | undefined): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const mount = trimSlash(req.baseUrl);
    req.bullbeatMount = mount;
    req.bullbeatBase = basePath ?? mount;
    next();
  };
}

/** The dashboard's public path for this request (`''` at the root), without a trailing slash. */
export function baseOf(req: Request): string {
  return req.bullbeatBase ?? trimSlash(req.baseUrl);
}

/** The request's path and query as the browser should ask for it: the public base plus the path inside the dashboard. */
export function publicUrlOf(req: Request): string {
  const mount = req.bullbeatMount ?? '';
  const inside = req.originalUrl.startsWith(mount) ? req.originalUrl.slice(mount.length) : req.originalUrl;
  return `${baseOf(req)}${inside.startsWith('/') ? inside : `/${inside}`}`;
}

/** A cookie path for the dashboard's cookies: its public base, or `/` at the root. */
export function cookiePathOf(req: Request): string {
  return baseOf(req) || '/';
}
