import type { Request, Response } from 'express';
import { z } from 'zod';
import { type BackfillOptions, backfillFields } from '../src/scheduler/index.js';
import { unknownKey } from '../src/store/index.js';
import { changeBy } from './change-actor.js';
import type { DashboardContext } from './dashboard-context.js';
import { parseInput } from './schedule-input.js';

/**
 * `POST /api/schedules/:id/backfill`: the library's own rule per field (`backfillFields`), and the
 * overrides of every run (`data`, `jobOptions`: checked by the library as a manual run's, naming the field).
 */
export const backfillSchema = z.strictObject(
  {
    ...backfillFields,
    data: z
      .unknown()
      .optional()
      .describe("every run's data instead of the schedule's (JSON, at most 64 KiB); recorded as overridden"),
    jobOptions: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("BullMQ options of every run's job over the schedule's (priority, lifo, ...)"),
  },
  { error: unknownKey('field') },
);

/**
 * `POST /api/schedules/:id/backfill`: a dry run answers 200 with the occurrences and what would
 * become of each; otherwise the range is checked and judged first (any error is a 400 naming the
 * field, or 404, before anything is enqueued), then 202 with the same list while the occurrences are
 * enqueued at the bounded rate in this process (a failure then is logged).
 */
export function backfillHandler(ctx: DashboardContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const id = String(req.params.id);
    const input = parseInput(backfillSchema, req.body);
    const run = await ctx.scheduler.startBackfill(id, {
      ...(input as BackfillOptions),
      ...changeBy(ctx, req),
    });
    run.done.catch((err: unknown) =>
      ctx.options.logger.error({ err, scheduleId: id }, 'bullbeat: backfill stopped before the end'),
    );
    res.status(run.result.dryRun ? 200 : 202).json(run.result);
  };
}
