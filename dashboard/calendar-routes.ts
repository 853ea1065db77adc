import { type Request, type Response, Router } from 'express';
import { calendarOverviews } from '../src/insight/index.js';
import type { DashboardContext } from './dashboard-context.js';
import { pageContextOf, sendPage } from './page-response.js';
import { calendarsPage } from './views/calendars-page.js';

/** `GET /api/calendars` and `GET /api/calendars/:name` (JSON): the named calendars, who uses each, their next days off. */
export function calendarApiRoutes(ctx: DashboardContext): Router {
  const r = Router();
  r.get('/calendars', async (_req, res) => {
    res.json({ items: await calendarOverviews(ctx.scheduler) });
  });
  r.get('/calendars/:name', async (req, res) => {
    const name = String(req.params.name);
    const [one] = await calendarOverviews(ctx.scheduler, { name });
    if (!one) {
      res.status(404).json({ error: `no calendar "${name}" (GET /api/calendars lists them)` });
      return;
    }
    res.json(one);
  });
  return r;
}

/** `/calendars`: the page. */
export function calendarPageRoutes(ctx: DashboardContext): Router {
  const r = Router();
  r.get('/calendars', async (req: Request, res: Response) => {
    const calendars = await calendarOverviews(ctx.scheduler);
    sendPage(res, 200, calendarsPage(pageContextOf(ctx, req, res), calendars));
  });
  return r;
}
