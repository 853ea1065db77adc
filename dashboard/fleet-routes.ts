import { type Request, type Response, Router } from 'express';
import type { DashboardContext } from './dashboard-context.js';
import { baseOf } from './mount-base.js';
import { fleetPage } from './views/fleet-page.js';

/** `/fleet` (the page) and `/api/fleet` (JSON): the fleet registry and the stale-schedule counts. */
export function fleetRoutes(ctx: DashboardContext): Router {
  const r = Router();
  const read = async () => {
    const [fleet, health] = await Promise.all([ctx.fleet.snapshot(), ctx.health.read()]);
    return { fleet, health };
  };
  r.get('/api/fleet', async (_req, res) => {
    const { fleet, health } = await read();
    res.json({ ...fleet, health });
  });
  r.get('/fleet', async (req: Request, res: Response) => {
    const { fleet, health } = await read();
    const page = {
      base: baseOf(req),
      csrf: ctx.csrf.token(req, res),
      readOnly: ctx.options.readOnly,
      open: ctx.options.open,
    };
    res
      .status(200)
      .set('Content-Type', 'text/html; charset=utf-8')
      .set(
        'Content-Security-Policy',
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
      )
      .send(fleetPage(page, fleet, health));
  });
  return r;
}
