import { type Request, type Response, Router } from 'express';
import { agenda, DURATION_HELP, groups, parseWindow, whyDidntItRun } from '../src/insight/index.js';
import { instantProblem } from '../src/triggers/index.js';
import type { DashboardContext } from './dashboard-context.js';
import { pageContextOf, sendPage } from './page-response.js';
import { strParam } from './query-params.js';
import { selectorInput } from './schedule-batch.js';
import { InputError } from './schedule-input.js';
import { AGENDA_SLICES, agendaPage } from './views/agenda-page.js';
import type { PageContext } from './views/layout.js';
import { whyPage } from './views/why-page.js';

/** The `at` query parameter: ISO 8601 or epoch ms, inside the range of instants a schedule may use. */
function atParam(req: Request): number | undefined {
  const text = strParam(req, 'at');
  if (text === undefined) return undefined;
  const t = /^\d+$/.test(text.trim()) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(t))
    throw new InputError('at', `must be an ISO 8601 instant or epoch ms, got "${text}"`);
  const problem = instantProblem(t);
  if (problem !== undefined) throw new InputError('at', `"${text}": ${problem}`);
  return t;
}

function agendaQuery(req: Request) {
  const nextText = strParam(req, 'next') ?? '24h';
  const nextMs = parseWindow(nextText);
  if (nextMs === undefined || nextMs > 31 * 86_400_000) {
    throw new InputError('next', `must be ${DURATION_HELP}, at most 31d, got "${nextText}"`);
  }
  const queue = strParam(req, 'queue');
  const selector = strParam(req, 'selector');
  if (selector !== undefined) selectorInput(selector);
  return { nextText, nextMs, queue, selector };
}

/** `GET /api/schedules/:id/why?at=`, `GET /api/agenda?next=&queue=` and `GET /api/groups`. */
export function insightApiRoutes(ctx: DashboardContext): Router {
  const r = Router();
  r.get('/schedules/:id/why', async (req: Request, res: Response) => {
    const at = atParam(req);
    res.json(await whyDidntItRun(ctx.scheduler, String(req.params.id), at === undefined ? {} : { at }));
  });
  r.get('/agenda', async (req, res) => {
    const { nextMs, queue, selector } = agendaQuery(req);
    const only = { ...(queue !== undefined && { queue }), ...(selector !== undefined && { selector }) };
    res.json(await agenda(ctx.scheduler, { nextMs, limit: 5000, ...only }));
  });
  // every group the schedules name, with its runs going on and waiting now
  r.get('/groups', async (_req, res) => {
    res.json({ groups: await groups(ctx.scheduler) });
  });
  return r;
}

/** `/schedules/:id/why` and `/agenda` (the timeline). */
export function insightPageRoutes(ctx: DashboardContext): Router {
  const r = Router();
  const page = (req: Request, res: Response): PageContext => pageContextOf(ctx, req, res);
  const send = (res: Response, body: string) => sendPage(res, 200, body);
  r.get('/schedules/:id/why', async (req, res) => {
    const at = atParam(req);
    const report = await whyDidntItRun(ctx.scheduler, String(req.params.id), at === undefined ? {} : { at });
    send(res, whyPage(page(req, res), report, strParam(req, 'at') ?? ''));
  });
  r.get('/agenda', async (req, res) => {
    const { nextText, nextMs, queue } = agendaQuery(req);
    const a = await agenda(ctx.scheduler, {
      nextMs,
      limit: 20_000,
      slices: AGENDA_SLICES,
      ...(queue !== undefined && { queue }),
    });
    send(res, agendaPage(page(req, res), a, nextText, queue));
  });
  return r;
}
