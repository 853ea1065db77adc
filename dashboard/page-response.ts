import type { Request, Response } from 'express';
import type { DashboardContext } from './dashboard-context.js';
import { baseOf } from './mount-base.js';
import type { PageContext } from './views/layout.js';

/** The policy every server-rendered page is sent with: its own scripts and styles only, never framed. */
const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'";

/** What a page's layout needs from the request: its mount path, a CSRF token, the dashboard's mode. */
export function pageContextOf(ctx: DashboardContext, req: Request, res: Response): PageContext {
  return {
    base: baseOf(req),
    csrf: ctx.csrf.token(req, res),
    readOnly: ctx.options.readOnly,
    open: ctx.options.open,
  };
}

/** Send a server-rendered page. */
export function sendPage(res: Response, status: number, body: string): void {
  res
    .status(status)
    .set('Content-Type', 'text/html; charset=utf-8')
    .set('Content-Security-Policy', PAGE_CSP)
    .send(body);
}
