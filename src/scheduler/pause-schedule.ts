import { ScheduleNotFoundError, ScheduleOptionsError } from '../errors/index.js';
import type { AuditConfig } from '../store/audit-trail.js';
import { JobStatus } from '../store/job-status.js';
import { type PauseNotes, pauseNoteProblem } from '../store/pause-note.js';
import type { ScheduleStore } from '../store/schedule-store.js';
import { actorOf } from './change-options.js';
import type { PauseOptions } from './pause-options.js';
import type { ScheduledJob } from './scheduled-job.js';

/** What a pause needs from the manager. */
export interface PauseContext {
  store: ScheduleStore;
  notes: PauseNotes;
  audit: AuditConfig;
  local: ReadonlyMap<string, ScheduledJob>;
  publishStop(id: string): Promise<void>;
}

/**
 * Pause an active schedule with its note: the status, the note and the audit entry in one script
 * (`lua/pause-5.lua`), then every replica is told to drop its occurrences claimed ahead. False if it
 * was not active (nothing written); a `ScheduleNotFoundError` if there is none.
 */
export async function pauseSchedule(
  ctx: PauseContext,
  id: string,
  options: PauseOptions = {},
): Promise<boolean> {
  const problem =
    typeof options !== 'object' || options === null
      ? { field: 'options', reason: 'must be an object { note?, by?, via? }' }
      : pauseNoteProblem(options.note, options.by);
  if (problem) throw new ScheduleOptionsError(id, problem.field, problem.reason);
  const who = actorOf(id, options);
  const at = await ctx.store.time();
  const r = await ctx.notes.pause(id, { note: options.note ?? '', by: who.actor, at }, ctx.audit, who);
  if (r === 0) throw new ScheduleNotFoundError(id);
  if (r !== 1) return false;
  await ctx.publishStop(id);
  const job = ctx.local.get(id);
  if (job) {
    job.status = JobStatus.PAUSED;
    job.nextRunTime = null;
  }
  return true;
}
