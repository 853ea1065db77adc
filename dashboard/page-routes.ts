import { type Request, type Response, Router } from 'express';
import { ScheduleNotFoundError } from '../src/errors/index.js';
import type { ResumePolicy } from '../src/scheduler/index.js';
import { internalsOf } from '../src/scheduler/index.js';
import { AlertStore } from '../src/store/index.js';
import { changeBy } from './change-actor.js';
import type { DashboardContext } from './dashboard-context.js';
import { baseOf } from './mount-base.js';
import { pageContextOf, sendPage } from './page-response.js';
import { intParam, statusParam, strParam } from './query-params.js';
import { sameOriginPath } from './same-origin-path.js';
import { selectorProblem } from './schedule-batch.js';
import { InputError } from './schedule-input.js';
import { html } from './views/html.js';
import { layout, type PageContext } from './views/layout.js';
import { editable, newSchedulePage } from './views/new-schedule-page.js';
import { OCCURRENCES_SHOWN, schedulePage } from './views/schedule-page.js';
import { schedulesPage } from './views/schedules-page.js';

const ACTIONS = ['pause', 'resume', 'trigger', 'remove', 'revert'] as const;
type Action = (typeof ACTIONS)[number];
const DONE: Record<Action, string> = {
  pause: 'Paused',
  resume: 'Resumed',
  trigger: 'Triggered a run of',
  remove: 'Removed',
  revert: 'Reverted',
};

/** The trigger form's `data` (JSON text, optional) as `triggerNow`'s override; bad JSON is a 400 naming `data`. */
function formData(text: unknown): { data?: unknown } {
  if (typeof text !== 'string' || text.trim() === '') return {};
  try {
    return { data: JSON.parse(text) as unknown };
  } catch (err) {
    throw new InputError('data', `must be JSON (${(err as Error).message})`);
  }
}

let timezones: string[] | undefined;
function allTimezones(): string[] {
  timezones ??= ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  return timezones;
}

/** The server-rendered pages: `/`, `/schedules/:id`, `/new`, and the action endpoints their forms post to. */
export function pageRoutes(ctx: DashboardContext): Router {
  const r = Router();
  const page = (req: Request, res: Response): PageContext => pageContextOf(ctx, req, res);
  const send = sendPage;
  const flashOf = (req: Request) => {
    const done = strParam(req, 'done') as Action | undefined;
    const name = strParam(req, 'name');
    if (done && ACTIONS.includes(done)) return { ok: true, text: `${DONE[done]} "${name ?? ''}".` };
    if (strParam(req, 'created')) return { ok: true, text: 'Schedule created.' };
    if (strParam(req, 'updated')) return { ok: true, text: 'Schedule updated.' };
    return undefined;
  };

  r.get('/', async (req, res) => {
    const q = strParam(req, 'q') ?? '';
    const status = statusParam(req);
    const offset = intParam(req, 'offset', 0);
    const limit = ctx.options.pageSize;
    const selector = strParam(req, 'selector') ?? '';
    const badSelector = selector === '' ? undefined : selectorProblem(selector);
    const only = { ...(status !== undefined && { status }), ...(selector !== '' && { selector }) };
    const [pageIds, counts, totals] = await Promise.all([
      badSelector ? { ids: [], total: 0 } : ctx.index.page({ search: q, offset, limit, ...only }),
      ctx.index.statusCounts(),
      ctx.scheduler.history.totals(),
    ]);
    const items = await ctx.reader.many(pageIds.ids);
    const self = `${baseOf(req)}${req.url.startsWith('/') ? req.url : `/${req.url}`}`.replace(
      /([?&])(done|name)=[^&]*/g,
      '$1',
    );
    send(
      res,
      200,
      schedulesPage(
        page(req, res),
        {
          items,
          total: pageIds.total,
          ...('totalAtLeast' in pageIds && pageIds.totalAtLeast && { totalAtLeast: true }),
          offset,
          limit,
          q,
          selector,
          status,
          counts,
          totals,
          flash: badSelector ? { ok: false, text: badSelector } : flashOf(req),
        },
        self,
      ),
    );
  });

  r.get('/new', async (req, res) => {
    if (ctx.options.readOnly) {
      send(
        res,
        405,
        layout(
          page(req, res),
          'Read-only',
          'other',
          html`<h1>Read-only</h1><p>This dashboard is read-only.</p>`,
        ),
      );
      return;
    }
    const served = (await ctx.fleet.snapshot().catch(() => undefined))?.served ?? {};
    send(
      res,
      200,
      newSchedulePage(
        page(req, res),
        allTimezones(),
        internalsOf(ctx.scheduler).options.defaultQueue,
        served,
      ),
    );
  });

  // -- schedule controls: update from the dashboard --
  r.get('/schedules/:id/edit', async (req, res) => {
    const id = String(req.params.id);
    const view = await ctx.reader.one(id);
    if (ctx.options.readOnly || !view || !editable(view)) {
      const why = !view
        ? html`No schedule "${id}".`
        : ctx.options.readOnly
          ? 'This dashboard is read-only.'
          : view.source === 'code'
            ? 'It is defined in code: change it in the jobs module (the next start would overwrite an edit).'
            : 'Its trigger cannot be edited here: use the API (PATCH /api/schedules/:id).';
      send(
        res,
        view ? 409 : 404,
        layout(page(req, res), 'Cannot edit', 'other', html`<h1>Cannot edit</h1><p>${why}</p>`),
      );
      return;
    }
    const served = (await ctx.fleet.snapshot().catch(() => undefined))?.served ?? {};
    send(
      res,
      200,
      newSchedulePage(
        page(req, res),
        allTimezones(),
        internalsOf(ctx.scheduler).options.defaultQueue,
        served,
        view,
      ),
    );
  });

  r.get('/schedules/:id', async (req, res) => {
    const id = String(req.params.id);
    const view = await ctx.reader.one(id);
    if (!view) {
      send(
        res,
        404,
        layout(
          page(req, res),
          'Not found',
          'other',
          html`<h1>No schedule "${id}"</h1><p><a href="${baseOf(req)}/">All schedules</a></p>`,
        ),
      );
      return;
    }
    const internals = internalsOf(ctx.scheduler);
    const [runs, audit, kept, incidents] = await Promise.all([
      ctx.scheduler.history(id, OCCURRENCES_SHOWN),
      ctx.scheduler.auditTrail(id, { limit: 20 }),
      ctx.reader.historySize(id),
      new AlertStore(internals.redis, internals.prefix).incidents({ open: true, scheduleIds: new Set([id]) }),
    ]);
    const history = { kept, limit: internals.options.historyLimit };
    send(res, 200, schedulePage(page(req, res), view, runs, flashOf(req), audit, history, incidents));
  });

  r.post('/schedules/:id/:action', async (req, res) => {
    const id = String(req.params.id);
    const action = String(req.params.action) as Action;
    if (!ACTIONS.includes(action)) {
      res.status(404).json({ error: `unknown action "${action}"` });
      return;
    }
    const view = await ctx.reader.one(id);
    if (!view) throw new ScheduleNotFoundError(id);
    const m = ctx.scheduler;
    const form = (req.body ?? {}) as { note?: unknown; policy?: unknown; to?: unknown; data?: unknown };
    const who = changeBy(ctx, req);
    if (action === 'pause') {
      const note = typeof form.note === 'string' && form.note.trim() !== '' ? form.note.trim() : undefined;
      await m.pause(id, { ...who, ...(note !== undefined && { note }) });
    } else if (action === 'resume') {
      await m.resume(id, { ...who, ...(form.policy ? { policy: String(form.policy) as ResumePolicy } : {}) });
    } else if (action === 'trigger') await m.triggerNow(id, { ...who, ...formData(form.data) });
    else if (action === 'revert') {
      await m.revert(id, { ...who, ...(typeof form.to === 'string' && form.to !== '' && { to: form.to }) });
    } else await m.remove(id, who);
    const base = baseOf(req);
    const body = req.body as { back?: unknown } | undefined;
    // only paths of this dashboard (see sameOriginPath); a removed schedule's page is gone
    let back = sameOriginPath(body?.back, base);
    if (action === 'remove' && back.includes('/schedules/')) back = `${base}/`;
    const sep = back.includes('?') ? '&' : '?';
    res.redirect(303, `${back}${sep}done=${action}&name=${encodeURIComponent(view.name)}`);
  });

  return r;
}
