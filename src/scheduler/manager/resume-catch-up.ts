import { ScheduleNotFoundError, ScheduleOptionsError } from '../../errors/index.js';
import type { AuditActor, PauseNotes, ResumeTake, ScheduleDefinition } from '../../store/index.js';
import { checkedNextFire } from '../../triggers/checked-next-fire.js';
import type { Trigger } from '../../triggers/trigger.js';
import { enqueueOwed, type OwedRunsContext } from '../backfill/index.js';
import { actorOf, RESUME_POLICIES, type ResumeOptions, type ResumePolicy } from '../contract/index.js';
import { type EnqueueContext, resumeSchedule } from './schedule-writes.js';

const RESUME_KEYS = ['policy', 'maxCatchUp', 'by', 'via'];

/** Under `once`, missed occurrences are counted up to this many (the record's `coalesced`). */
export const ONCE_COUNT_CAP = 10_000;

/** What a resume with a policy needs: a manual run's context, the pause notes and the ledger. */
export interface ResumeContext extends EnqueueContext, OwedRunsContext {
  notes: PauseNotes;
  /** How long the catch-up runs may wait to be enqueued before a replica enqueues them (ms). */
  owedGraceMs: number;
}

/**
 * The checked policy and bound (undefined: the schedule's own `maxCatchUp`, read with its definition);
 * a `ScheduleOptionsError` naming `policy` or `maxCatchUp` otherwise.
 */
export function checkResumeOptions(
  id: string,
  options: ResumeOptions | undefined,
): { policy: ResumePolicy; maxCatchUp: number | undefined; by: AuditActor } {
  const o = options ?? {};
  if (typeof o !== 'object' || o === null || Array.isArray(o)) {
    throw new ScheduleOptionsError(id, 'options', 'must be an object { policy?, maxCatchUp?, by?, via? }');
  }
  for (const k of Object.keys(o)) {
    if (!RESUME_KEYS.includes(k)) throw new ScheduleOptionsError(id, k, 'unknown resume option');
  }
  const by = actorOf(id, o);
  const policy = o.policy ?? 'skip';
  if (!RESUME_POLICIES.includes(policy)) {
    throw new ScheduleOptionsError(
      id,
      'policy',
      `must be one of ${RESUME_POLICIES.map((p) => `"${p}"`).join(', ')}, got ${JSON.stringify(policy)}`,
    );
  }
  const maxCatchUp = o.maxCatchUp;
  if (maxCatchUp !== undefined && (!Number.isInteger(maxCatchUp) || maxCatchUp < 0)) {
    throw new ScheduleOptionsError(
      id,
      'maxCatchUp',
      `must be an integer >= 0, got ${JSON.stringify(maxCatchUp)}`,
    );
  }
  return { policy, maxCatchUp, by };
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
 * occurrences are those at or after the pause (its note's `at`) and after its last run or claimed
 * occurrence; `all` beyond `maxCatchUp` is refused before anything changes. One script
 * (`lua/resume-10.lua`) changes the status (one winner among concurrent resumes), records the span
 * paused over (a backfill may run what nothing ran there) and takes the catch-up runs into the
 * schedule's ledger, leaving out those a backfill took (`once`: one run, the latest missed occurrence
 * left, `coalesced` = how many it stands for). The winner then enqueues them, each with the job id of
 * its occurrence, recorded with kind `catch-up`, one after another (`bufferAll`); if it crashes first,
 * a scheduler replica enqueues them once `owedGraceMs` has passed. The note is dropped. A schedule
 * that is errored (or not paused) goes to `resume` unchanged: the policy applies to a pause only.
 */
export async function resumeWithPolicy(
  ctx: ResumeContext,
  id: string,
  options: ResumeOptions | undefined,
): Promise<boolean> {
  const { policy, maxCatchUp: given, by } = checkResumeOptions(id, options);
  const row = await ctx.store.get(id);
  if (!row) throw new ScheduleNotFoundError(id);
  // one catch-up bound per schedule: its own `maxCatchUp` (the same that bounds `misfire: 'all'`)
  const maxCatchUp = given ?? row.def.maxCatchUp;
  const paused = row.state.status === 'p' || row.state.status === 'o';
  const trigger = paused && policy !== 'skip' ? ctx.triggerOf(row.def) : undefined;
  let missed: number[] = [];
  if (trigger) {
    const [note] = await ctx.notes.getMany([id]);
    const now = await ctx.store.time();
    // The pause's own instant is in the pause (an occurrence there came due while paused, as the span
    // a backfill judges has it), so the missed ones start at it; the last run's and the claim's after.
    const since = Math.max(
      note ? note.at - 1 : Number.NEGATIVE_INFINITY,
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
  let taken: ResumeTake['runs'] = [];
  const resumed = await resumeSchedule(
    ctx,
    id,
    async (next) => {
      const r = await ctx.ledger.resume(id, next, policy, missed, ctx.owedGraceMs, by);
      taken = r.runs;
      return r.code;
    },
    by,
  );
  if (!resumed) return false;
  await ctx.notes.clear(id);
  const runs = taken.map((r) => ({
    ...r,
    scheduleId: id,
    lane: 'catch-up' as const,
    overlap: 'bufferAll' as const,
  }));
  await enqueueOwed(ctx, row.def, runs);
  return true;
}
