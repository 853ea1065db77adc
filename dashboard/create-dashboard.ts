import type { JobType } from 'bullmq';
import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type Response,
} from 'express';
import {
  BullbeatError,
  CronSyntaxError,
  InvalidTimezoneError,
  ScheduleNotFoundError,
  ScheduleOptionsError,
  TriggerError,
} from '../src/errors/index.js';
import { groups } from '../src/insight/index.js';
import { FleetReader } from '../src/ops/index.js';
import { internalsOf } from '../src/scheduler/index.js';
import { AlertStore, checkDeployment, ping, ScheduleIndex } from '../src/store/index.js';
import { registerAlertGauges } from './alert-gauges.js';
import { alertsRoutes } from './alerts-routes.js';
import { apiRoutes } from './api-routes.js';
import { CLIENT_JS } from './assets/client-script.js';
import { STYLE_CSS } from './assets/style.js';
import { Auth } from './auth.js';
import { bulkApiRoutes } from './bulk-routes.js';
import { calendarApiRoutes, calendarPageRoutes } from './calendar-routes.js';
import { Csrf } from './csrf.js';
import type { Dashboard } from './dashboard.js';
import type { DashboardContext } from './dashboard-context.js';
import { DashboardMetrics } from './dashboard-metrics.js';
import type { DashboardOptions } from './dashboard-options.js';
import { registerDeploymentGauges } from './deployment-gauges.js';
import { DeploymentHealthReader } from './deployment-health.js';
import { fleetRoutes } from './fleet-routes.js';
import { insightApiRoutes, insightPageRoutes } from './insight-routes.js';
import { loginRoutes } from './login-routes.js';
import { baseOf, cookiePathOf, mountBase, publicUrlOf } from './mount-base.js';
import { openModeHosts } from './open-mode-hosts.js';
import { pageRoutes } from './page-routes.js';
import { QueueBoard } from './queue-board.js';
import { resolveDashboardOptions } from './resolve-dashboard-options.js';
import { InputError } from './schedule-input.js';
import { ScheduleReader } from './schedule-reader.js';
import { timeZoneRoute } from './time-zone-route.js';
import { escapeHtml } from './views/html.js';

export type { Dashboard } from './dashboard.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Build the dashboard for a `SchedulerManager`: Bull Board at `/admin/queues`, the schedules pages,
 * the JSON API under `/api`, `/metrics`, `/healthz` and `/readyz`. Throws `ConfigError` when it has
 * no credentials and was not told to run open (see `DashboardOptions`).
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  const o = resolveDashboardOptions(options);
  const scheduler = o.scheduler;
  const now = Date.now;
  const index = new ScheduleIndex(internalsOf(scheduler).redis, internalsOf(scheduler).keys);
  const reader = new ScheduleReader(
    internalsOf(scheduler).redis,
    internalsOf(scheduler).keys,
    internalsOf(scheduler).options.historyLimit,
    now,
    (names) => scheduler.calendars.current(names),
  );
  const metrics = new DashboardMetrics(internalsOf(scheduler).history, index);
  metrics.attach(scheduler as unknown as Parameters<DashboardMetrics['attach']>[0]);
  const fleet = new FleetReader(internalsOf(scheduler).redis, internalsOf(scheduler).prefix);
  const health = new DeploymentHealthReader(
    internalsOf(scheduler).redis,
    internalsOf(scheduler).keys,
    index,
    reader,
    {
      lateThresholdMs: internalsOf(scheduler).options.lateThresholdMs,
      cacheMs: o.cacheMs,
    },
  );
  registerDeploymentGauges(metrics.registry, {
    health,
    fleet,
    queues: {
      queues: async () =>
        [...new Set([...(await index.queues()), internalsOf(scheduler).options.defaultQueue])].sort(),
      counts: (queue, states) =>
        internalsOf(scheduler)
          .queue(queue)
          .getJobCounts(...(states as JobType[])),
    },
    groups: () => groups(scheduler),
  });
  registerAlertGauges(metrics.registry, () =>
    new AlertStore(internalsOf(scheduler).redis, internalsOf(scheduler).prefix).report({
      open: true,
      limit: 1000,
    }),
  );
  const board = new QueueBoard({
    // the <base href> of its page is rewritten per request (rewriteBoardPage)
    basePath: '/admin/queues',
    readOnly: o.readOnly,
    connection: internalsOf(scheduler).connectionOptions(),
    // from the schedule index (cheap, cached), plus the default queue of schedules that name none
    discover: async () =>
      [...new Set([...(await index.queues()), internalsOf(scheduler).options.defaultQueue])].sort(),
    ...(queuePrefixOf(scheduler) !== undefined && { bullPrefix: queuePrefixOf(scheduler) }),
    bullPrefixFor: (queue: string) => internalsOf(scheduler).queuePrefixFor(queue),
    refreshMs: o.cacheMs,
    logger: o.logger,
    onRunFinished: (outcome, ms) => metrics.observeRun(outcome, ms),
    now,
  });
  const auth = new Auth(o);
  const csrf = new Csrf(auth, cookiePathOf);
  const ctx: DashboardContext = {
    options: o,
    scheduler,
    index,
    reader,
    metrics,
    board,
    csrf,
    now,
    fleet,
    health,
  };

  // Express inside; the public type (`Dashboard`) is Node's handler shape, without Express's types.
  const app = express() as unknown as Express & Dashboard;
  app.disable('x-powered-by');
  // Where this request reached the dashboard: every link, redirect and cookie path follows it.
  app.use(mountBase(o.basePath));
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('X-Frame-Options', 'DENY');
    next();
  });
  // Open, nothing but the Host name tells a local browser tab from a DNS-rebinding page.
  if (o.open) app.use(openModeHosts(o.allowedHosts));

  // Open routes: liveness, readiness, static assets, sign-in.
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      const pong = await Promise.race([
        ping(internalsOf(scheduler).redis),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('timed out after 2000 ms')), 2000).unref(),
        ),
      ]);
      res.json({ status: 'ready', redis: pong });
    } catch (err) {
      res.status(503).json({ status: 'unavailable', redis: (err as Error).message });
    }
  });
  app.get('/assets/style.css', (_req, res) => {
    res.type('text/css').set('Cache-Control', 'max-age=300').send(STYLE_CSS);
  });
  app.get('/assets/app.js', (_req, res) => {
    res.type('application/javascript').set('Cache-Control', 'max-age=300').send(CLIENT_JS);
  });
  app.use(loginRoutes(auth));

  const metricsHandler = async (_req: Request, res: Response) => {
    res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics());
  };
  if (!o.metricsAuth) app.get('/metrics', metricsHandler);

  // Everything below needs credentials.
  app.use(auth.middleware((req) => `${baseOf(req)}/login?next=${encodeURIComponent(publicUrlOf(req))}`));
  if (o.metricsAuth) app.get('/metrics', metricsHandler);
  // Schedules are found by their partition: with another count than the deployment recorded, every page
  // would show an empty deployment; data in a newer format than this release knows would be misread.
  // Checked until the deployment holds this count and format (a read records none).
  let partitionsChecked = false;
  app.use(async (_req, _res, next) => {
    try {
      if (!partitionsChecked) {
        partitionsChecked = await checkDeployment(
          internalsOf(scheduler).redis,
          internalsOf(scheduler).keys,
          false,
        );
      }
      next();
    } catch (err) {
      next(err);
    }
  });

  if (o.readOnly) {
    app.use((req, res, next) => {
      if (!WRITE_METHODS.has(req.method)) return next();
      res.status(405).set('Allow', 'GET, HEAD').json({ error: 'the dashboard is read-only' });
    });
  }

  // Bull Board: its UI sends no CSRF token, so a write must prove it comes from this origin.
  app.use('/admin/queues', csrf.boardMiddleware(), rewriteBoardPage, board.middleware(), board.router());

  // a batch of schedules is larger than any other body (at most MAX_BATCH of them)
  app.use('/api/schedules\\:batch', express.json({ limit: '64mb' }));
  app.use(express.json({ limit: '256kb' }), express.urlencoded({ extended: false, limit: '64kb' }));
  app.use(csrf.middleware());
  app.use('/', timeZoneRoute(), fleetRoutes(ctx), alertsRoutes(ctx), calendarPageRoutes(ctx));
  app.use('/api', insightApiRoutes(ctx), bulkApiRoutes(ctx), calendarApiRoutes(ctx), apiRoutes(ctx));
  app.use('/', insightPageRoutes(ctx), pageRoutes(ctx));

  app.use(errorHandler(o.logger));

  app.close = async () => {
    metrics.close();
    await board.close();
  };
  Object.defineProperty(app, 'metrics', { value: metrics });
  return app;
}

/**
 * Bull Board's page, rewritten as it is sent: its `<base href>` (from which its UI derives every
 * URL) becomes this request's `<dashboard base>/admin/queues/`, wherever the dashboard is mounted;
 * and its Google Fonts link is dropped, since an operations tool should fetch nothing from the
 * internet (and may have none): the UI falls back to local fonts.
 */
function rewriteBoardPage(req: Request, res: Response, next: NextFunction): void {
  if (req.method === 'GET' && !req.path.startsWith('/api/') && !req.path.startsWith('/static/')) {
    const send = res.send.bind(res);
    const base = escapeHtml(`${baseOf(req)}/admin/queues/`);
    res.send = (body?: unknown) =>
      send(
        typeof body === 'string'
          ? body
              .replace(/<base href="[^"]*"/, () => `<base href="${base}"`)
              .replace(/<link[^>]+href="https:\/\/fonts\.googleapis\.com[^>]*>\s*/g, '')
          : body,
      );
  }
  next();
}

/** Domain errors become 400/404 JSON with the field named; anything else is a logged 500. */
function errorHandler(logger: { error(obj: object, msg: string): void }): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) return;
    const send = (status: number, body: Record<string, unknown>) => res.status(status).json(body);
    if (err instanceof InputError)
      return send(400, { error: err.message, field: err.field, reason: err.reason });
    if (err instanceof ScheduleNotFoundError) return send(404, { error: err.message, id: err.scheduleId });
    if (err instanceof ScheduleOptionsError)
      return send(400, { error: `${err.field}: ${err.reason}`, field: err.field });
    if (err instanceof TriggerError)
      return send(400, { error: `trigger.${err.field}: ${err.reason}`, field: `trigger.${err.field}` });
    if (err instanceof CronSyntaxError || err instanceof InvalidTimezoneError) {
      return send(400, { error: err.message, field: 'trigger' });
    }
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // body-parser: malformed JSON, payload too large
      return send(status, { error: (err as Error).message, field: '(body)' });
    }
    logger.error({ err, path: req.path }, 'dashboard: request failed');
    return send(500, { error: err instanceof BullbeatError ? err.message : 'internal error' });
  };
}

/** BullMQ's key prefix of the scheduler's queues, when it sets one (BullMQ's default `bull` otherwise). */
function queuePrefixOf(scheduler: object): string | undefined {
  const p = (scheduler as { queuePrefix?: unknown }).queuePrefix;
  return typeof p === 'string' && p !== '' ? p : undefined;
}
