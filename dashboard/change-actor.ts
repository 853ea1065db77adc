import type { Request } from 'express';
import type { ChangeOptions } from '../src/scheduler/index.js';
import type { DashboardContext } from './dashboard-context.js';

/** Who pauses from the dashboard or its API: `dashboard:<basic-auth user>`, or `dashboard`. */
export function dashboardUser(ctx: DashboardContext): string {
  return ctx.options.user ? `dashboard:${ctx.options.user}` : 'dashboard';
}

/**
 * Who makes a change through the dashboard, for the schedule's audit trail: a request with the bearer
 * token is `api:<tokenName>` via `api`; any other (basic auth, a signed-in browser, an open dashboard:
 * the page's forms and its scripts' calls of the API) is the dashboard user via `dashboard`.
 */
export function changeBy(ctx: DashboardContext, req: Request): Required<Pick<ChangeOptions, 'by' | 'via'>> {
  return req.bullbeatAuth === 'bearer'
    ? { by: `api:${ctx.options.tokenName}`, via: 'api' }
    : { by: dashboardUser(ctx), via: 'dashboard' };
}
