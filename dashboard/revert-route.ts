import type { Request, Response } from 'express';
import { z } from 'zod';
import { unknownKey } from '../src/store/index.js';
import { scheduleView } from './api-schemas.js';
import { changeBy } from './change-actor.js';
import type { DashboardContext } from './dashboard-context.js';
import { parseInput } from './schedule-input.js';

/** `POST /api/schedules/:id/revert`: `to`, an audit entry id of this schedule (absent: undo its last change). */
export const revertSchema = z.strictObject(
  {
    to: z
      .string()
      .optional()
      .describe(
        'an entry id of its audit trail (GET .../history); default: the definition before its last change',
      ),
  },
  { error: unknownKey('field') },
);

/** What a revert answers: the entry used, the fields it changed (none: already so, nothing written), the schedule. */
export const revertBody = z.object({
  id: z.string(),
  entry: z.string().describe('the audit entry reverted to, or whose change was undone'),
  changed: z.boolean(),
  changes: z.array(
    z.object({ field: z.string(), before: z.unknown().optional(), after: z.unknown().optional() }),
  ),
  schedule: scheduleView,
});

/**
 * `POST /api/schedules/:id/revert`: a runtime schedule back to a definition from its audit trail, as an
 * update by the caller (audited). A code schedule is a 400 naming `source` and the deploy to revert;
 * an entry of another schedule, or one with no definition, a 400 naming `to`; no schedule, 404.
 */
export function revertHandler(ctx: DashboardContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const id = String(req.params.id);
    const input = parseInput(revertSchema, req.body ?? {});
    const r = await ctx.scheduler.revert(id, {
      ...(input.to !== undefined && { to: input.to }),
      ...changeBy(ctx, req),
    });
    const schedule = await ctx.reader.one(id);
    res.json({ id, entry: r.entry, changed: r.changes.length > 0, changes: r.changes, schedule });
  };
}
