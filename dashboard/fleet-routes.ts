import { type Request, type Response, Router } from 'express';
import { codeDeploys } from '../src/insight/index.js';
import type { DashboardContext } from './dashboard-context.js';
import { pageContextOf, sendPage } from './page-response.js';
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
    const [{ fleet, health }, deploys] = await Promise.all([read(), codeDeploys(ctx.scheduler)]);
    sendPage(res, 200, fleetPage(pageContextOf(ctx, req, res), fleet, health, deploys));
  });
  return r;
}
