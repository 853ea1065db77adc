import { type Request, type Response, Router } from 'express';
import { ScheduleNotFoundError, TriggerBudgetError, TriggerError } from '../src/errors/index.js';
import { packageVersion } from '../src/package-version.js';
import type { ResumeOptions, TriggerNowOptions } from '../src/scheduler/index.js';
import { internalsOf } from '../src/scheduler/index.js';
import {
  checkTimeBudget,
  DEFAULT_TRIGGER_BUDGET_MS,
  describeTrigger,
  ExceptTrigger,
  type SerializableTrigger,
  withTimeBudget,
} from '../src/triggers/index.js';
import { auditHistory } from './audit-route.js';
import { backfillHandler } from './backfill-route.js';
import { changeBy } from './change-actor.js';
import type { DashboardContext } from './dashboard-context.js';
import { openApiDocument } from './openapi.js';
import { intParam, statusParam, strParam } from './query-params.js';
import { revertHandler } from './revert-route.js';
import { selectorInput } from './schedule-batch.js';
import {
  checkPast,
  createSchema,
  InputError,
  inputOptions,
  parseInput,
  pauseSchema,
  resumeSchema,
  toTrigger,
  updateSchema,
} from './schedule-input.js';
import type { ScheduleView } from './schedule-view.js';
import { triggerSchema } from './trigger-input.js';
import { durationOf, latenessOf } from './views/schedule-page.js';

const MAX_LIMIT = 500;

/** `/api/preview`: `cron=<expr>&tz=<zone>` | `interval=<seconds>` | `date=<iso or ms>&tz=`, `n` times. */
export function preview(
  req: Request,
  now: number,
  /** The CPU time (ms) the preview's walk may take (the scheduler's `triggerBudgetMs`). */
  budgetMs = DEFAULT_TRIGGER_BUDGET_MS,
): { description: string; next: number[]; trigger: unknown } {
  const n = Math.max(1, intParam(req, 'n', 5, 50));
  const tz = strParam(req, 'tz') ?? 'UTC';
  const cron = strParam(req, 'cron');
  const interval = strParam(req, 'interval');
  const date = strParam(req, 'date');
  let json: unknown;
  let field: string;
  if (cron !== undefined) {
    json = { type: 'cron', expression: cron, timezone: tz };
    field = 'cron';
  } else if (interval !== undefined) {
    json = { type: 'interval', seconds: Number(interval) };
    field = 'interval';
  } else if (date !== undefined) {
    json = { type: 'date', at: /^\d+$/.test(date) ? Number(date) : date, timezone: tz };
    field = 'date';
  } else {
    throw new InputError(
      'cron',
      'give cron=<expression> (with tz=<zone>), interval=<seconds> or date=<ISO date-time>',
    );
  }
  let trigger: ReturnType<typeof toTrigger>;
  try {
    trigger = toTrigger(json, field);
  } catch (err) {
    // name the query parameter: `tz` for a bad zone, else the trigger kind
    if (err instanceof InputError) {
      throw new InputError(err.field.endsWith('.timezone') ? 'tz' : field, err.reason);
    }
    throw err;
  }
  const shown = withExceptParam(req, trigger);
  const next: number[] = [];
  try {
    // the whole walk under one budget: a list that cannot be walked in time is refused, and the
    // process (its /healthz, the other requests) is never held longer than that
    withTimeBudget(budgetMs, () => {
      let last: number | null = null;
      while (next.length < n) {
        const t = shown.nextFire(last, now);
        if (t === null || t <= now || (last !== null && t <= last)) break;
        next.push(t);
        last = t;
        checkTimeBudget();
      }
    });
  } catch (err) {
    if (err instanceof TriggerBudgetError) {
      throw new InputError(
        shown === trigger ? field : 'except',
        `the next fire times cannot be computed within the trigger time budget (${budgetMs} ms of CPU, triggerBudgetMs)`,
      );
    }
    if (err instanceof TriggerError && err.trigger === 'ExceptTrigger' && err.field === 'except') {
      throw new InputError('except', err.reason); // it excludes every occurrence
    }
    throw err;
  }
  return { description: describeTrigger(shown.toJSON()), next, trigger: shown.toJSON() };
}

/** `except=<entries, one per line>`: the preview's trigger minus them (as the schedule option does). */
function withExceptParam(req: Request, trigger: SerializableTrigger): SerializableTrigger {
  const text = strParam(req, 'except');
  if (text === undefined) return trigger;
  const entries = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (entries.length === 0) return trigger;
  try {
    return new ExceptTrigger(trigger, entries);
  } catch (err) {
    if (err instanceof TriggerError && err.trigger === 'ExceptTrigger') {
      const line = /^except\[(\d+)\]/.exec(err.field)?.[1];
      throw new InputError(
        'except',
        line === undefined ? err.reason : `line ${Number(line) + 1}: ${err.reason}`,
      );
    }
    throw err;
  }
}

/**
 * Sillo's stats over the deployment, camelCase like the rest of the API. `uptime` is this process's
 * scheduler's, so it is null when the process runs none (a standalone dashboard), never a false 0.
 */
export async function schedulerStats(ctx: DashboardContext) {
  const s = await ctx.scheduler.stats();
  return { ...s, uptime: ctx.scheduler.running ? s.uptime : null };
}

async function mustGet(ctx: DashboardContext, id: string) {
  const view = await ctx.reader.one(id);
  if (!view) throw new ScheduleNotFoundError(id);
  return view;
}

/**
 * Why a create may not overwrite the schedule already stored under its id, or undefined when it may
 * (`replace` given, and the schedule is a runtime one: code owns a code schedule).
 */
function createConflict(existing: ScheduleView, replace: boolean): string | undefined {
  if (existing.source === 'code') {
    return `schedule "${existing.id}" is defined in code (source: code): it is never replaced from outside; change it in the jobs module`;
  }
  if (replace) return undefined;
  return `a schedule "${existing.id}" already exists (${existing.description}, queue "${existing.queue}"): send "replace": true to overwrite it`;
}

/** The JSON API under `/api`. Writes answer 405 in read-only mode (checked before this router). */
export function apiRoutes(ctx: DashboardContext): Router {
  const r = Router();
  const m = ctx.scheduler;
  const id = (req: Request) => String(req.params.id);

  r.get('/schedules', async (req: Request, res: Response) => {
    const offset = intParam(req, 'offset', 0);
    const limit = Math.max(1, intParam(req, 'limit', ctx.options.pageSize, MAX_LIMIT));
    const q = strParam(req, 'q');
    const status = statusParam(req);
    const queue = strParam(req, 'queue');
    const selector = strParam(req, 'selector');
    if (selector !== undefined) selectorInput(selector);
    const cursor = strParam(req, 'cursor');
    const order = strParam(req, 'order');
    if (cursor !== undefined) {
      // the walk over every schedule (store order, or by name from the name index): each page reads its
      // own, never the whole index
      const walked = await m.listPage({
        cursor,
        limit,
        ...(order !== undefined && { order: order as 'store' | 'name' }),
        ...(selector !== undefined && { selector }),
        ...(req.query.offset !== undefined && { offset }),
        ...(q !== undefined && { search: q }),
        ...(status !== undefined && { status }),
        ...(queue !== undefined && { queue }),
      });
      const items = await ctx.reader.many(walked.items.map((j) => j.id));
      res.json({ total: walked.total, limit, cursor: walked.cursor ?? null, items });
      return;
    }
    const page = await ctx.index.page({
      offset,
      limit,
      ...(selector !== undefined && { selector }),
      ...(q !== undefined && { search: q }),
      ...(status !== undefined && { status }),
      ...(queue !== undefined && { queue }),
    });
    const items = await ctx.reader.many(page.ids);
    res.json({ total: page.total, ...(page.totalAtLeast && { totalAtLeast: true }), offset, limit, items });
  });

  r.get('/schedules/:id', async (req, res) => {
    res.json(await mustGet(ctx, id(req)));
  });

  r.get('/schedules/:id/runs', async (req, res) => {
    await mustGet(ctx, id(req));
    const limit = Math.max(1, intParam(req, 'limit', 100, 1000));
    const runs = await m.history(id(req), limit);
    res.json({
      items: runs.map((run) => ({ ...run, lateness: latenessOf(run), duration: durationOf(run) })),
    });
  });

  r.get('/schedules/:id/history', auditHistory(ctx));

  r.post('/schedules', async (req, res) => {
    const input = parseInput(createSchema, req.body);
    const trigger = toTrigger(input.trigger);
    const { name, trigger: _t, queue, replace, allowPast, ...rest } = input;
    checkPast(trigger, allowPast, ctx.now());
    const existing = await ctx.reader.one(rest.id ?? name);
    if (existing) {
      const conflict = createConflict(existing, replace === true);
      if (conflict !== undefined) {
        res.status(409).json({ error: conflict, id: existing.id });
        return;
      }
    }
    const target = { name, ...(queue !== undefined && { queue }) };
    const job = m.schedule(target, trigger, inputOptions(rest), changeBy(ctx, req));
    await job.saved;
    ctx.board.refresh(true).catch(() => undefined);
    res.status(existing ? 200 : 201).json(await mustGet(ctx, job.id));
  });

  r.patch('/schedules/:id', async (req, res) => {
    const view = await mustGet(ctx, id(req));
    const input = parseInput(updateSchema, req.body);
    if (view.source === 'code') {
      res.status(409).json({
        error: `schedule "${view.id}" is defined in code: change it in the jobs module (the next deploy would overwrite an edit)`,
      });
      return;
    }
    const def = view.definition;
    if (input.trigger === undefined && def.trigger.type === 'custom') {
      throw new InputError('trigger', 'the schedule has a custom trigger: give a built-in one to update it');
    }
    const { allowPast, ...changes } = input;
    const trigger = changes.trigger === undefined ? undefined : toTrigger(changes.trigger);
    // the edit form sends the trigger back as it is: a date kept unchanged is no new past date
    const given = trigger?.toJSON();
    const sameDate = given?.type === 'date' && def.trigger.type === 'date' && def.trigger.at === given.at;
    if (!sameDate) checkPast(trigger, allowPast, ctx.now());
    // merged with what is stored and checked by the schedule schema in `update()`
    const patch = { ...inputOptions(changes), ...(trigger !== undefined && { trigger }) };
    await m.update(def.id, patch, changeBy(ctx, req));
    ctx.board.refresh(true).catch(() => undefined);
    res.json(await mustGet(ctx, def.id));
  });

  r.post('/schedules/:id/pause', async (req, res) => {
    const input = parseInput(pauseSchema, req.body);
    const { note, onBehalfOf = input.by } = input;
    // the actor is who authenticated; what the caller says about itself is only ever `onBehalfOf`
    const changed = await m.pause(id(req), {
      ...changeBy(ctx, req),
      ...(note !== undefined && { note }),
      ...(onBehalfOf !== undefined && { onBehalfOf }),
    });
    res.json({ id: id(req), changed, schedule: await mustGet(ctx, id(req)) });
  });

  r.post('/schedules/:id/resume', async (req, res) => {
    const input = parseInput(resumeSchema, req.body);
    const changed = await m.resume(id(req), { ...(input as ResumeOptions), ...changeBy(ctx, req) });
    res.json({ id: id(req), changed, schedule: await mustGet(ctx, id(req)) });
  });

  r.post('/schedules/:id/trigger', async (req, res) => {
    const input = parseInput(triggerSchema, req.body ?? {});
    const overrides = input as TriggerNowOptions;
    const { jobId, fireAt } = await m.triggerNow(id(req), { ...overrides, ...changeBy(ctx, req) });
    res.status(202).json({ id: id(req), jobId, fireAt });
  });

  r.post('/schedules/:id/backfill', backfillHandler(ctx));

  r.post('/schedules/:id/revert', revertHandler(ctx));

  r.delete('/schedules/:id', async (req, res) => {
    if (!(await m.remove(id(req), changeBy(ctx, req)))) throw new ScheduleNotFoundError(id(req));
    res.json({ id: id(req), removed: true });
  });

  r.get('/stats', async (_req, res) => {
    res.json(await schedulerStats(ctx));
  });

  r.get('/preview', (req, res) => {
    res.json(preview(req, ctx.now(), internalsOf(ctx.scheduler).options.triggerBudgetMs));
  });

  r.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument(packageVersion()));
  });

  r.get('/queues', async (_req, res) => {
    await ctx.board.refresh();
    res.json({ queues: ctx.board.queueNames });
  });

  r.use((_req, res) => {
    res.status(404).json({ error: 'no such API route' });
  });
  return r;
}
