import type { Request } from 'express';
import { InputError } from './schedule-input.js';
import type { ScheduleStatus } from './schedule-view.js';

// The query parameters the dashboard's routes read, each checked with an error naming it.

const STATUSES: readonly ScheduleStatus[] = ['active', 'paused', 'completed', 'cancelled', 'errored'];

/** A non-negative integer query parameter. */
export function intParam(req: Request, name: string, dflt: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = req.query[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isInteger(n) || n < 0 || n > max) {
    throw new InputError(name, `must be an integer from 0 to ${max}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/** A string query parameter given at most once. */
export function strParam(req: Request, name: string): string | undefined {
  const raw = req.query[name];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string') throw new InputError(name, 'must be given once, as a string');
  return raw;
}

/** `status`: one of the schedule statuses. */
export function statusParam(req: Request): ScheduleStatus | undefined {
  const s = strParam(req, 'status');
  if (s === undefined) return undefined;
  if (!STATUSES.includes(s as ScheduleStatus)) {
    throw new InputError('status', `must be one of ${STATUSES.join(', ')}, got "${s}"`);
  }
  return s as ScheduleStatus;
}
