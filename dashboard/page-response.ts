import type { Request, Response } from 'express';
import { cookies } from './auth.js';
import type { DashboardContext } from './dashboard-context.js';
import { baseOf } from './mount-base.js';
import type { PageContext } from './views/layout.js';
import { parseZoneChoice, ZONE_COOKIE } from './views/time-zone.js';

/** The policy every server-rendered page is sent with: its own scripts and styles only, never framed. */
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'";

/** What a page's layout needs from the request: its mount path, a CSRF token, the dashboard's mode, the time zone chosen. */
export function pageContextOf(ctx: DashboardContext, req: Request, res: Response): PageContext {
  return {
    base: baseOf(req),
    csrf: ctx.csrf.token(req, res),
    readOnly: ctx.options.readOnly,
    open: ctx.options.open,
    zone: parseZoneChoice(cookies(req)[ZONE_COOKIE]),
    self: withoutFlash(req.url),
  };
}

/** A page's own URL (below the base) without the one-time message of an action (`done`, `created`, ...). */
function withoutFlash(url: string): string {
  const u = new URL(url.startsWith('/') ? url : `/${url}`, 'http://x');
  for (const key of ['done', 'name', 'created', 'updated']) u.searchParams.delete(key);
  return `${u.pathname}${u.search}`;
}

/** Send a server-rendered page. */
export function sendPage(res: Response, status: number, body: string): void {
  res
    .status(status)
    .set('Content-Type', 'text/html; charset=utf-8')
    .set('Content-Security-Policy', PAGE_CSP)
    .send(body);
}
