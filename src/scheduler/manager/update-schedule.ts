import { ScheduleNotFoundError, ScheduleOptionsError } from '../../errors/index.js';
import type { AuditActor, ScheduleStore } from '../../store/index.js';
import type { ScheduledJob, SchedulePatch } from '../contract/index.js';
import { type DefineContext, patchedJob } from './define-schedule.js';
import type { LocalSchedules } from './local-schedules.js';
import type { ManagerContexts } from './manager-contexts.js';
import { restageUpdated } from './staged-controls.js';

/** What `update()` needs from the manager. */
export interface UpdateContext {
  store: ScheduleStore;
  contexts: ManagerContexts;
  schedules: LocalSchedules;
  define: DefineContext;
  /** Save by the same upsert as `schedule()`, only over the schedule created at `createdAt`. */
  persist(job: ScheduledJob, createdAt: number, by: AuditActor): Promise<void>;
}

/**
 * Change a stored runtime schedule (see `SchedulerManager.update`): a code schedule is refused
 * (`source`), the patch is checked before anything is written, the write happens only over the
 * schedule read, and its occurrences staged under the old definition are staged again as the new one
 * says. The handle saved; the caller reads it back.
 */
export async function updateSchedule(
  ctx: UpdateContext,
  id: string,
  patch: SchedulePatch,
  by: AuditActor,
): Promise<ScheduledJob> {
  const row = await ctx.store.get(id);
  if (!row) throw new ScheduleNotFoundError(id);
  if (row.def.source === 'code') {
    throw new ScheduleOptionsError(
      id,
      'source',
      'is defined in code: change it in the jobs module (its next start would overwrite an update)',
    );
  }
  const readable = row.error?.at !== null ? ctx.contexts.triggerOf(row.def) : undefined;
  const mine = ctx.schedules.byId.get(id);
  const job = patchedJob(ctx.define, row.def, patch, readable, mine);
  // only over the schedule read above: one removed meanwhile stays removed
  await ctx.persist(job, row.state.createdAt, by);
  await restageUpdated(ctx.contexts.staged, row.def, id);
  if (mine) ctx.schedules.replace(mine, job);
  return job;
}
