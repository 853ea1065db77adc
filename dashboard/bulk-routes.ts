import { Router } from 'express';
import { ScheduleOptionsError } from '../src/errors/index.js';
import type { ResumeOptions } from '../src/scheduler/index.js';
import { changeBy } from './change-actor.js';
import type { DashboardContext } from './dashboard-context.js';
import { intParam } from './query-params.js';
import {
  batchItems,
  batchSchema,
  bulkBackfillSchema,
  bulkPauseSchema,
  bulkRemoveSchema,
  bulkResumeSchema,
  selectorInput,
} from './schedule-batch.js';
import { InputError, parseInput } from './schedule-input.js';

/**
 * The JSON API's bulk routes (under `/api`): a batch of schedules in one request, and pause, resume,
 * remove and backfill by label selector (a backfill answers once every occurrence is enqueued; with
 * `dryRun`, what it would enqueue, per schedule). Each answers the bulk result (`changeId`, `matched`, `count`, `failed`) and
 * is one entry of the deployment's bulk trail (`GET /api/bulk-changes`).
 */
export function bulkApiRoutes(ctx: DashboardContext): Router {
  const r = Router();
  const m = ctx.scheduler;
  const done = () => {
    ctx.board.refresh(true).catch(() => undefined);
  };

  r.post('/schedules\\:batch', async (req, res) => {
    const { schedules } = parseInput(batchSchema, req.body);
    const items = batchItems(schedules, (i) => `schedules[${i}]`, ctx.now());
    const result = await m.scheduleMany(items, changeBy(ctx, req)).catch((err: unknown) => {
      // the library names an item `[i]`; the body's field is `schedules[i]`
      const at = err instanceof ScheduleOptionsError ? /^\[(\d+)\](.*)$/.exec(err.field) : null;
      throw at ? new InputError(`schedules[${at[1]}]${at[2]}`, (err as ScheduleOptionsError).reason) : err;
    });
    done();
    res.json(result);
  });

  r.post('/schedules\\:pause', async (req, res) => {
    const { selector, note, onBehalfOf } = parseInput(bulkPauseSchema, req.body);
    selectorInput(selector);
    const options = {
      ...changeBy(ctx, req),
      ...(note !== undefined && { note }),
      ...(onBehalfOf !== undefined && { onBehalfOf }),
    };
    const result = await m.select(selector).pause(options);
    done();
    res.json(result);
  });

  r.post('/schedules\\:resume', async (req, res) => {
    const { selector, ...rest } = parseInput(bulkResumeSchema, req.body);
    selectorInput(selector);
    const result = await m.select(selector).resume({ ...(rest as ResumeOptions), ...changeBy(ctx, req) });
    done();
    res.json(result);
  });

  r.post('/schedules\\:remove', async (req, res) => {
    const { selector, onBehalfOf } = parseInput(bulkRemoveSchema, req.body);
    selectorInput(selector);
    const result = await m
      .select(selector)
      .remove({ ...changeBy(ctx, req), ...(onBehalfOf !== undefined && { onBehalfOf }) });
    done();
    res.json(result);
  });

  r.post('/schedules\\:backfill', async (req, res) => {
    const { selector, onBehalfOf, ...options } = parseInput(bulkBackfillSchema, req.body);
    selectorInput(selector);
    const result = await m.select(selector).backfill({
      ...options,
      ...changeBy(ctx, req),
      ...(onBehalfOf !== undefined && { onBehalfOf }),
    });
    if (!result.dryRun) done();
    res.json(result);
  });

  r.get('/bulk-changes', async (req, res) => {
    res.json({ items: await m.bulkChanges(Math.max(1, intParam(req, 'limit', 50, 1000))) });
  });

  return r;
}
