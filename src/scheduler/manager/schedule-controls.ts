import { ScheduleNotFoundError, ScheduleOptionsError } from '../../errors/index.js';
import type { AuditConfig, BackfillLedger, ScheduleStore } from '../../store/index.js';
import { type PauseNotes, pauseNoteProblem, ScheduleStatus } from '../../store/index.js';
import type { ChangeOptions, PauseOptions, ScheduledJob } from '../contract/index.js';
import { actorOf } from '../contract/index.js';
import { type StagedControlContext, stagedReach, unstagePaused, unstageRemoved } from './staged-controls.js';

/** What a pause and a remove need from the manager. */
export interface ControlContext {
  store: ScheduleStore;
  notes: PauseNotes;
  audit: AuditConfig;
  ledger: BackfillLedger;
  local: Map<string, ScheduledJob>;
  /** The code schedules by job name (a removed one leaves it). */
  byName: Map<string, ScheduledJob>;
  publishStop(id: string): Promise<void>;
  /** How a pause and a remove reach the occurrences staged in BullMQ ahead of their instant. */
  staged: StagedControlContext;
}

/**
 * Pause an active schedule with its note: the status, the note and the audit entry in one script
 * (`lua/pause-5.lua`), then every replica is told to drop its occurrences claimed ahead. False if it
 * was not active (nothing written); a `ScheduleNotFoundError` if there is none.
 */
export async function pauseSchedule(
  ctx: ControlContext,
  id: string,
  options: PauseOptions = {},
): Promise<boolean> {
  const problem =
    typeof options !== 'object' || options === null
      ? { field: 'options', reason: 'must be an object { note?, by?, via?, onBehalfOf? }' }
      : pauseNoteProblem(options.note, options.by);
  if (problem) throw new ScheduleOptionsError(id, problem.field, problem.reason);
  const who = actorOf(id, options);
  const at = await ctx.store.time();
  const note = {
    note: options.note ?? '',
    by: who.actor,
    ...(who.onBehalfOf !== undefined && { onBehalfOf: who.onBehalfOf }),
    at,
  };
  const r = await ctx.notes.pause(id, note, ctx.audit, who);
  if (r === 'missing') throw new ScheduleNotFoundError(id);
  if (r !== 'done') return false;
  await ctx.publishStop(id);
  const job = ctx.local.get(id);
  if (job) {
    job.status = ScheduleStatus.PAUSED;
    job.nextRunTime = null;
    job.wakeUpTime = null;
  }
  await unstagePaused(ctx.staged, id);
  return true;
}

/**
 * Remove (cancel) a schedule and forget its history: its definition, state and records, with its
 * `remove` audit entry, in one script (`lua/remove-13.lua`; the trail is kept `auditRetentionMs`), then
 * its pause note and ledger. False if there was none.
 */
export async function removeSchedule(
  ctx: ControlContext,
  id: string,
  change?: ChangeOptions,
): Promise<boolean> {
  const by = actorOf(id, change);
  const def = (await ctx.store.get(id))?.def;
  // where its staged jobs are, read while its records still say (the removal takes them)
  const staged = def && (await stagedReach(ctx.staged, def, id));
  const job = ctx.local.get(id);
  if (job) {
    job.status = ScheduleStatus.CANCELLED;
    job.nextRunTime = null;
    job.wakeUpTime = null;
    ctx.local.delete(id);
    if (ctx.byName.get(job.name) === job) ctx.byName.delete(job.name);
  }
  const removed = await ctx.store.remove(id, '', by);
  await ctx.notes.delete(id);
  if (removed) await ctx.publishStop(id);
  if (removed) await ctx.ledger.clear(id);
  if (removed && def !== undefined && staged) await unstageRemoved(ctx.staged, def, id, staged);
  return removed;
}
