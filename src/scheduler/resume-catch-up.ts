import { ScheduleNotFoundError, ScheduleOptionsError } from '../errors/index.js';
import { occurrenceJobData, occurrenceJobId } from '../store/job-payload.js';
import type { PauseNotes } from '../store/pause-note.js';
import type { ScheduleDefinition } from '../store/schedule-definition.js';
import { checkedNextFire } from '../triggers/checked-next-fire.js';
import type { Trigger } from '../triggers/trigger.js';
import {
  DEFAULT_RESUME_MAX_CATCH_UP,
  RESUME_POLICIES,
  type ResumeOptions,
  type ResumePolicy,
} from './resume-options.js';
import type { EnqueueContext } from './schedule-writes.js';

/** Under `once`, missed occurrences are counted up to this many (the record's `coalesced`). */
export const ONCE_COUNT_CAP = 10_000;

/** What a resume with a policy needs: a manual run's context plus the pause notes. */
export interface ResumeContext extends EnqueueContext {
  notes: PauseNotes;
}

/** The checked policy and bound; a `ScheduleOptionsError` naming `policy` or `maxCatchUp` otherwise. */
export function checkResumeOptions(
  id: string,
  options: ResumeOptions | undefined,
): { policy: ResumePolicy; maxCatchUp: number } {
  const o = options ?? {};
  if (typeof o !== 'object' || o === null || Array.isArray(o)) {
    throw new ScheduleOptionsError(id, 'options', 'must be an object { policy?, maxCatchUp? }');
  }
  for (const k of Object.keys(o)) {
    if (k !== 'policy' && k !== 'maxCatchUp') throw new ScheduleOptionsError(id, k, 'unknown resume option');
  }
  const policy = o.policy ?? 'skip';
  if (!RESUME_POLICIES.includes(policy)) {
    throw new ScheduleOptionsError(
      id,
      'policy',
      `must be one of ${RESUME_POLICIES.map((p) => `"${p}"`).join(', ')}, got ${JSON.stringify(policy)}`,
    );
  }
  const maxCatchUp = o.maxCatchUp ?? DEFAULT_RESUME_MAX_CATCH_UP;
  if (!Number.isInteger(maxCatchUp) || maxCatchUp < 0) {
    throw new ScheduleOptionsError(
      id,
      'maxCatchUp',
      `must be an integer >= 0, got ${JSON.stringify(maxCatchUp)}`,
    );
  }
  return { policy, maxCatchUp };
}

/**
 * The occurrences of `trigger` in `(since, now]` within the schedule's window (`startAt`, `endAt`),
 * oldest first, at most `cap` of them.
 */
export function missedBetween(
  trigger: Trigger,
  def: ScheduleDefinition,
  since: number,
  now: number,
  cap: number,
): number[] {
  const out: number[] = [];
  let last = since;
  for (let steps = 0; out.length < cap && steps < ONCE_COUNT_CAP * 10; steps++) {
    const t = checkedNextFire(trigger, last, now);
    if (t === null || t > now || (def.endAt !== undefined && t > def.endAt)) break;
    if (def.startAt === undefined || t >= def.startAt) out.push(t);
    last = t;
  }
  return out;
}

/**
 * Resume a paused schedule with a policy for what was due while it was paused. The missed
 * occurrences are those after the pause (its note's `at`) and after its last run or claimed
 * occurrence; `all` beyond `maxCatchUp` is refused before anything changes. The status change is
 * the commit (`resume`, one winner among concurrent resumes); the winner then enqueues the runs, each
 * with the job id of its occurrence, recorded with kind `catch-up` (`once`: one run, the latest
 * missed occurrence, `coalesced` = how many it stands for). The note is dropped. A schedule that is
 * errored (or not paused) goes to `resume` unchanged: the policy applies to a pause only.
 */
export async function resumeWithPolicy(
  ctx: ResumeContext,
  id: string,
  options: ResumeOptions | undefined,
  resume: () => Promise<boolean>,
): Promise<boolean> {
  const { policy, maxCatchUp } = checkResumeOptions(id, options);
  const row = await ctx.store.get(id);
  if (!row) throw new ScheduleNotFoundError(id);
  const paused = row.state.status === 'p' || row.state.status === 'o';
  const trigger = paused && policy !== 'skip' ? ctx.triggerOf(row.def) : undefined;
  let missed: number[] = [];
  if (trigger) {
    const [note] = await ctx.notes.getMany([id]);
    const now = await ctx.store.time();
    const since = Math.max(
      note?.at ?? Number.NEGATIVE_INFINITY,
      row.state.lastFireAt ?? Number.NEGATIVE_INFINITY,
      row.claimedFireAt ?? Number.NEGATIVE_INFINITY,
    );
    if (Number.isFinite(since)) {
      missed = missedBetween(
        trigger,
        row.def,
        since,
        now,
        policy === 'all' ? maxCatchUp + 1 : ONCE_COUNT_CAP,
      );
    }
    if (policy === 'all' && missed.length > maxCatchUp) {
      throw new ScheduleOptionsError(
        id,
        'maxCatchUp',
        `more than ${maxCatchUp} occurrences were due while it was paused (since ${new Date(since).toISOString()}): resume with policy "once", or give a larger maxCatchUp`,
      );
    }
  }
  const resumed = await resume();
  if (!resumed) return false;
  await ctx.notes.clear(id);
  if (missed.length > 0) await enqueueCatchUp(ctx, row.def, policy, missed);
  return true;
}

async function enqueueCatchUp(
  ctx: ResumeContext,
  def: ScheduleDefinition,
  policy: ResumePolicy,
  missed: readonly number[],
): Promise<void> {
  const runs =
    policy === 'once'
      ? [{ fireAt: missed[missed.length - 1] as number, coalesced: missed.length }]
      : missed.map((fireAt) => ({ fireAt, coalesced: undefined }));
  const jobs = runs.map((r) => {
    const jobId = occurrenceJobId(def.id, r.fireAt);
    return {
      ...r,
      jobId,
      name: def.name,
      data: occurrenceJobData(def, r.fireAt, 'catch-up', ctx.prefix),
      opts: ctx.jobOptions(def, jobId),
    };
  });
  // read before the add: a worker's start (Redis TIME) is never before the record's `enqueuedAt`
  const enqueuedAt = await ctx.store.time();
  await ctx.queue(def.queue).addBulk(jobs.map(({ name, data, opts }) => ({ name, data, opts })));
  for (const j of jobs) {
    await ctx.history.merge(def.id, j.fireAt, false, {
      kind: 'catch-up',
      outcome: 'enqueued',
      enqueuedAt,
      queue: def.queue,
      jobId: j.jobId,
      ...(j.coalesced !== undefined && { coalesced: j.coalesced }),
    });
    ctx.events.emit('fired', {
      scheduleId: def.id,
      name: def.name,
      queue: def.queue,
      fireAt: j.fireAt,
      kind: 'catch-up',
      jobId: j.jobId,
      lateMs: Math.max(0, enqueuedAt - j.fireAt),
    });
  }
}
