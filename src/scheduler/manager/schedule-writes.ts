import type { EventEmitter } from 'node:events';
import type { JobsOptions, Queue } from 'bullmq';
import type { Logger } from 'pino';
import { ScheduleNotFoundError, ScheduleOptionsError } from '../../errors/index.js';
import type {
  CalendarBook,
  Keys,
  RunHistory,
  ScheduleErrorInfo,
  ScheduleStore,
  StatusChange,
} from '../../store/index.js';
import {
  type AuditActor,
  dueEarlier,
  jobDataFor,
  type ManualRunStore,
  occurrenceJobId,
  RUNTIME_ACTOR,
  recordManualRun,
  type ScheduleDefinition,
  timingFingerprint,
} from '../../store/index.js';
import { withCallerContext } from '../../tracing/job-context.js';
import { checkedNextFire } from '../../triggers/checked-next-fire.js';
import type { Trigger } from '../../triggers/trigger.js';
import {
  checkNotify,
  resolveTriggerNowOptions,
  type ScheduledJob,
  type SchedulerEvents,
  type TriggerNowOptions,
} from '../contract/index.js';
import { dueTrigger } from './calendar-due.js';
import { firstFire } from './first-fire.js';

/** What saving and resuming a schedule need from the manager. */
export interface WriteContext {
  store: ScheduleStore;
  keys: Keys;
  logger: Logger;
  events: EventEmitter<SchedulerEvents>;
  /** Publish on the wake channel. */
  publish(message: string): Promise<unknown>;
  /** The trigger of a stored definition (a custom one only if this process defines it). */
  triggerOf(def: ScheduleDefinition): Trigger | undefined;
  local: ReadonlyMap<string, ScheduledJob>;
  /** The notifier names configured here or announced by the scheduler replicas (`expect.notify` is checked against them). */
  knownNotifiers(): Promise<ReadonlySet<string>>;
  /** The named calendars (a schedule on one is planned with its current version). */
  calendars?: CalendarBook | undefined;
}

/**
 * Save a definition. A trigger whose first fire time cannot be planned stores it errored; saving an
 * errored schedule again clears its error and plans it from now. A re-timed schedule claimed at or
 * after its new first time starts after that occurrence (it never goes back in time), and a
 * code-defined one-shot that already ran stays completed. `ifCreatedAt` (an update): only over the
 * schedule created then; one removed (or created again) meanwhile is a `ScheduleNotFoundError`.
 */
export async function saveSchedule(
  ctx: WriteContext,
  job: ScheduledJob,
  ifCreatedAt: number | undefined,
  /** Who saves it: its audit entries (create, update, errored, cleared) name them. */
  by: AuditActor,
): Promise<void> {
  const { store, logger } = ctx;
  const planned = await dueTrigger(job.id, job.trigger, ctx.calendars); // an unknown calendar: refused here
  const def = job.def;
  if (def.expect?.notify?.length) checkNotify(def.id, def.expect, await ctx.knownNotifiers());
  const now = await store.time();
  // Its instant is often computed at import (`Date.now() + ...`): a start must not re-arm a reminder
  // that already went out.
  const keepCompleted = def.source === 'code' && def.trigger.type === 'date';
  let next: number | null = null;
  let problem: Error | undefined;
  const plan = (after: number) => {
    try {
      next = firstFire(def, planned, after);
    } catch (err) {
      next = null;
      problem = err instanceof Error ? err : new Error(String(err));
    }
  };
  plan(now);
  const upsert = () =>
    store.upsert(def, timingFingerprint(def), next, now, { keepCompleted, ifCreatedAt, by });
  let result = await upsert();
  for (let i = 0; i < 5 && result.startsWith('claimed:'); i++) {
    plan(Math.max(now, Number(result.slice('claimed:'.length))));
    result = await upsert();
  }
  if (result === 'missing') throw new ScheduleNotFoundError(job.id);
  if (result.startsWith('claimed:')) throw new Error(`schedule ${job.id}: kept being claimed while re-timed`);
  if (problem) {
    const info: ScheduleErrorInfo = { reason: problem.message, at: now, fireAt: null };
    if (await store.markErrored(job.id, '', info, now, by)) {
      job.applyState({ ...(await store.get(job.id))!.state, status: 'e' }, null, info);
      logger.error({ err: problem, scheduleId: job.id }, 'bullbeat: schedule errored at definition');
      ctx.events.emit('errored', {
        scheduleId: job.id,
        name: job.name,
        fireAt: null,
        reason: info.reason,
        error: problem,
      });
    }
    return;
  }
  if (result === 'kept-completed') {
    logger.info(
      { scheduleId: job.id },
      'bullbeat: one-shot schedule already ran; not re-armed (remove it, or give it a new id, to run it again)',
    );
    return;
  }
  logger.debug({ scheduleId: job.id, result }, 'bullbeat: schedule saved');
  // `immediately`: a created schedule fires once now (or at its startAt), then follows its trigger;
  // only a creation does (a restart's upsert answers unchanged/updated/restored).
  if (result === 'created' && def.immediately && next !== null) {
    const at = Math.max(now, def.startAt ?? now);
    if (at < next && (await dueEarlier(store.redis, ctx.keys, job.id, at))) next = at;
  }
  const cleared = await store.clearError(job.id, next, now, by);
  if ((result !== 'unchanged' || cleared) && next !== null) await ctx.publish(String(next));
}

/**
 * Resume a paused (or orphaned) schedule from the next occurrence after now, not before its `startAt`,
 * and after any occurrence still claimed from before the pause; retry an errored one (its error cleared, planned from now: a
 * trigger that still fails throws and leaves it errored). False if it was neither. `activate` makes a
 * paused one active from `next` (as `set-status-6` answers: `done`, `claimed` at or after `next`);
 * by default the bare status change.
 */
export async function resumeSchedule(
  ctx: WriteContext,
  id: string,
  activate: (next: number) => Promise<StatusChange> = (next) => ctx.store.setStatus(id, 'po', 'a', next),
  /** Who resumes it: the audit entry of clearing an errored one names them. */
  by: AuditActor = RUNTIME_ACTOR,
): Promise<boolean> {
  const { store } = ctx;
  for (let attempt = 0; ; attempt++) {
    const row = await store.get(id);
    if (!row) throw new ScheduleNotFoundError(id);
    const status = row.state.status;
    if (status !== 'p' && status !== 'o' && status !== 'e') return false;
    if (row.error && row.error.at === null) {
      throw new ScheduleOptionsError(id, 'definition', `cannot be resumed: ${row.error.reason}`);
    }
    const stored = ctx.triggerOf(row.def);
    if (!stored) {
      throw new ScheduleOptionsError(id, 'trigger', 'has a custom trigger that this process does not define');
    }
    const trigger = await dueTrigger(id, stored, ctx.calendars);
    const now = await store.time();
    if (status === 'e') {
      const next = firstFire(row.def, trigger, Math.max(now, row.claimedFireAt ?? now));
      if (!(await store.clearError(id, next, now, by))) return false;
      await ctx.publish(String(next ?? now));
      ctx.local.get(id)?.applyState({ ...row.state, status: next === null ? 'c' : 'a' }, next);
      return true;
    }
    const last = Math.max(
      row.state.lastFireAt ?? Number.NEGATIVE_INFINITY,
      row.claimedFireAt ?? Number.NEGATIVE_INFINITY,
    );
    const after = Number.isFinite(last) ? last : null;
    let next = checkedNextFire(trigger, after, now);
    if (next !== null && next <= now && after !== null)
      next = checkedNextFire(trigger, null, Math.max(now, after));
    // no occurrence before startAt: a schedule paused before its start resumes at its first one
    if (next !== null && row.def.startAt !== undefined && next < row.def.startAt)
      next = checkedNextFire(trigger, null, row.def.startAt - 1);
    const r = await activate(next ?? now);
    if (r === 'claimed' && attempt < 5) continue; // claimed meanwhile at or after `next`: read it again
    if (r === 'done') {
      await ctx.publish(String(next ?? now));
      ctx.local.get(id)?.applyState({ ...row.state, status: 'a' }, next);
    }
    return r === 'done';
  }
}

/** What a manual run needs beyond saving. */
export interface EnqueueContext extends WriteContext {
  prefix: string;
  history: { merge: RunHistory['merge'] };
  queue(name: string): Queue;
  jobOptions(def: ScheduleDefinition, jobId: string): JobsOptions;
  /** Where a manual run is recorded with its audit entry. */
  manualRuns: ManualRunStore;
}

/**
 * Enqueue one run of a schedule now, recorded as manual (its own job id: it never replaces a scheduled
 * one). `data` and `jobOptions` given replace the schedule's for this run only; its record names them
 * (`overrides`) and who asked (`overriddenBy`). Bad options are refused before anything is read.
 */
export async function enqueueNow(
  ctx: EnqueueContext,
  id: string,
  options?: TriggerNowOptions,
): Promise<{ jobId: string; fireAt: number }> {
  const { by, overrides } = resolveTriggerNowOptions(id, options);
  const row = await ctx.store.get(id);
  if (!row) throw new ScheduleNotFoundError(id);
  const def: ScheduleDefinition = {
    ...row.def,
    ...(overrides.names.includes('data') && { data: overrides.data }),
    ...(overrides.jobOptions !== undefined && {
      jobOptions: { ...row.def.jobOptions, ...overrides.jobOptions },
    }),
  };
  const fireAt = await ctx.store.time();
  const jobId = occurrenceJobId(id, fireAt, true);
  const data = jobDataFor(def, fireAt, 'manual', ctx.prefix);
  await ctx.queue(def.queue).add(def.name, data, withCallerContext(ctx.jobOptions(def, jobId)));
  const patch = {
    kind: 'manual',
    outcome: 'enqueued',
    enqueuedAt: fireAt,
    queue: def.queue,
    jobId,
    ...(overrides.names.length > 0 && { overrides: overrides.names.join(','), overriddenBy: by.actor }),
  } as const;
  await recordManualRun(ctx.manualRuns, id, fireAt, patch, by);
  ctx.events.emit('fired', {
    scheduleId: id,
    name: def.name,
    queue: def.queue,
    fireAt,
    kind: 'manual',
    jobId,
    lateMs: 0,
  });
  return { jobId, fireAt };
}
