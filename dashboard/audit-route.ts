import type { Request, Response } from 'express';
import { ScheduleNotFoundError } from '../src/errors/index.js';
import { internalsOf } from '../src/scheduler/index.js';
import type { DashboardContext } from './dashboard-context.js';
import { intParam, strParam } from './query-params.js';
import { InputError } from './schedule-input.js';

const ENTRY_ID = /^\d+-\d+$/;

/**
 * `GET /api/schedules/:id/history`: the schedule's audit trail, newest first (`limit`, and `before` an
 * entry id for the next page). A removed schedule answers while its trail is kept (`removed: true`),
 * so that the remove can be investigated; 404 when there is neither a schedule nor a trail.
 */
export function auditHistory(ctx: DashboardContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const id = String(req.params.id);
    const limit = Math.max(1, intParam(req, 'limit', 50, 500));
    const before = strParam(req, 'before');
    if (before !== undefined && !ENTRY_ID.test(before)) {
      throw new InputError('before', `must be an entry id <ms>-<seq>, got ${JSON.stringify(before)}`);
    }
    const m = ctx.scheduler;
    const [items, view] = await Promise.all([
      m.auditTrail(id, { limit, ...(before !== undefined && { before }) }),
      ctx.reader.one(id),
    ]);
    if (!view && items.length === 0 && before === undefined) throw new ScheduleNotFoundError(id);
    // a removed schedule's trail goes `auditRetentionMs` after its remove (the newest entry)
    const last = items[0];
    const keptUntil =
      !view && before === undefined && last?.op === 'remove'
        ? last.at + internalsOf(m).options.auditRetentionMs
        : null;
    res.json({ id, removed: !view, keptUntil, items });
  };
}
