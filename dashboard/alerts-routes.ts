import { type Request, type Response, Router } from 'express';
import { internalsOf } from '../src/scheduler/index.js';
import { AlertStore } from '../src/store/index.js';
import type { DashboardContext } from './dashboard-context.js';
import { pageContextOf, sendPage } from './page-response.js';
import { strParam } from './query-params.js';
import { selectorInput } from './schedule-batch.js';
import { alertsPage } from './views/alerts-page.js';

/**
 * `/alerts` (the page) and `/api/alerts` (JSON, `?open=1` for the open ones only, `?selector=tenant=acme`
 * for those of the schedules whose labels match, `?schedule=<id>` for one schedule's): incidents with
 * their deliveries. Read only: notifiers are the operator's (`--notifier`, `BULLBEAT_NOTIFIERS`); no
 * route adds or changes one.
 */
export function alertsRoutes(ctx: DashboardContext): Router {
  const r = Router();
  const read = async (req: Request) => {
    const m = ctx.scheduler;
    const open = req.query.open === '1' || req.query.open === 'true';
    const selector = strParam(req, 'selector');
    const scheduleId = strParam(req, 'schedule');
    const scheduleIds =
      selector !== undefined
        ? new Set(await m.select(selectorInput(selector).text).ids())
        : scheduleId !== undefined
          ? new Set([scheduleId])
          : undefined;
    return new AlertStore(internalsOf(m).redis, internalsOf(m).prefix).report({
      ...(open && { open: true }),
      limit: 200,
      ...(scheduleIds && { scheduleIds }),
    });
  };
  r.get('/api/alerts', async (req, res) => {
    res.json(await read(req));
  });
  r.get('/alerts', async (req: Request, res: Response) => {
    sendPage(res, 200, alertsPage(pageContextOf(ctx, req, res), await read(req)));
  });
  return r;
}
