import { BullbeatError, ScheduleOptionsError, TriggerError } from '../../errors/index.js';
import type { AuditActor, BulkTrail } from '../../store/index.js';
import { timingFingerprint } from '../../store/index.js';
import type { Trigger, TriggerJSON } from '../../triggers/trigger.js';
import { triggerFromJSON } from '../../triggers/trigger-from-json.js';
import type { ScheduledJob, ScheduleOptions, ScheduleTarget } from '../contract/index.js';
import { type DefineContext, definedJob } from './define-schedule.js';
import { firstFire } from './first-fire.js';
import { type BulkResult, forEachId } from './schedule-selection.js';
import { saveSchedule, type WriteContext } from './schedule-writes.js';

/** One schedule of `scheduleMany`: what `schedule(target, trigger, options)` takes. */
export interface ScheduleManyItem {
  /** The job it enqueues: `{ queue?, name }` (a runtime schedule; functions are defined one by one). */
  target: ScheduleTarget;
  /** A trigger object or a built-in trigger's JSON (`{ type: 'cron', expression: '0 9 * * *' }`). */
  trigger: Trigger | TriggerJSON;
  options?: ScheduleOptions;
}

/** What `scheduleMany` needs from the manager. */
export interface ScheduleManyContext {
  define: DefineContext;
  writes: WriteContext;
  trail: BulkTrail;
}

/**
 * Check every item first, as `schedule()` would (an error names the item: `[12].labels.my key: ...`, and
 * nothing is written); then save them, each by the same upsert as `schedule()` (its own audit entry), a
 * bounded number at once, and wake the replicas once, for the earliest due time. One entry, with its
 * count, goes in the deployment's bulk trail. Saving is idempotent: a batch cut short (a lost connection)
 * can be sent again as it was.
 */
export async function scheduleMany(
  ctx: ScheduleManyContext,
  items: readonly ScheduleManyItem[],
  by: AuditActor,
): Promise<BulkResult> {
  if (!Array.isArray(items)) throw new ScheduleOptionsError(undefined, 'schedules', 'must be an array');
  const jobs = items.map((item, i) => checkedItem(ctx.define, item, i));
  const seen = new Map<string, number>();
  jobs.forEach((job, i) => {
    const first = seen.get(job.id);
    if (first !== undefined) {
      throw new ScheduleOptionsError(job.id, `[${i}].id`, `is also item [${first}]'s: each id once`);
    }
    seen.set(job.id, i);
  });
  await refuseCodeSchedules(ctx.writes, jobs);
  let earliest: number | null = null;
  const track = (job: ScheduledJob) => {
    const t = job.nextRunTime;
    if (t !== null && (earliest === null || t < earliest)) earliest = t;
  };
  const writes: WriteContext = {
    ...ctx.writes,
    publish: async (message) => {
      const t = Number(message);
      if (Number.isFinite(t) && (earliest === null || t < earliest)) earliest = t;
    },
  };
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const clock = batchClock(ctx.writes);
  const { count, failed } = await forEachId([...byId.keys()], async (id) => {
    const job = byId.get(id)!;
    if (!(await created(ctx.writes, job, await clock(), by))) await saveSchedule(writes, job, undefined, by);
    track(job);
    return true;
  });
  if (earliest !== null) await ctx.writes.publish(String(earliest));
  const changeId = await ctx.trail.append({ op: 'create', matched: jobs.length, count }, by);
  return { changeId, matched: jobs.length, count, failed };
}

/**
 * A schedule declared in a jobs module (`cron()`, `every()`, `schedule(fn, ...)`: source `code`) is its
 * code's: a batch never replaces it (its next deploy would put the code's definition back). Refused before
 * anything is written, naming the item and the schedule, as `POST /api/schedules` refuses one.
 */
async function refuseCodeSchedules(writes: WriteContext, jobs: readonly ScheduledJob[]): Promise<void> {
  const states = await writes.store.statesOf(jobs.map((j) => j.id));
  const i = jobs.findIndex((j) => states.get(j.id)?.source === 'code');
  if (i < 0) return;
  const id = jobs[i]!.id;
  throw new ScheduleOptionsError(
    id,
    `[${i}].id`,
    `schedule "${id}" is defined in code (source: code): it is never replaced from outside; change it in the jobs module`,
  );
}

/** Redis's time, read again every `BATCH_CLOCK_MS` of this process's clock (one `TIME` per batch, not per schedule). */
const BATCH_CLOCK_MS = 1000;

function batchClock(writes: WriteContext): () => Promise<number> {
  let base: { redis: number; local: number } | null = null;
  let reading: Promise<number> | null = null;
  return async () => {
    const local = performance.now();
    if (base === null || local - base.local > BATCH_CLOCK_MS) {
      reading ??= writes.store.time().then((redis) => {
        base = { redis, local: performance.now() };
        reading = null;
        return redis;
      });
      return reading;
    }
    return base.redis + Math.floor(local - base.local);
  };
}

/**
 * The fast path of a new schedule: its first fire time planned, then one upsert. True when it created
 * it; anything else (it existed, its trigger cannot be planned) goes the way of `schedule()`
 * (`saveSchedule`: re-plan, clear an error, re-time around a claim), which the upsert left room for.
 */
async function created(
  writes: WriteContext,
  job: ScheduledJob,
  now: number,
  by: AuditActor,
): Promise<boolean> {
  let next: number | null;
  try {
    next = firstFire(job.def, job.trigger, now);
  } catch {
    return false;
  }
  if (job.def.immediately) return false;
  const result = await writes.store.upsert(job.def, timingFingerprint(job.def), next, now, { by });
  if (result !== 'created') return false;
  job.nextRunTime = next;
  job.wakeUpTime = next;
  return true;
}

function checkedItem(define: DefineContext, item: ScheduleManyItem, i: number): ScheduledJob {
  const where = (field: string) => `[${i}].${field}`;
  if (typeof item !== 'object' || item === null) {
    throw new ScheduleOptionsError(undefined, `[${i}]`, 'must be an object { target, trigger, options? }');
  }
  if (typeof item.target !== 'object' || item.target === null) {
    throw new ScheduleOptionsError(undefined, where('target'), 'must be { queue?, name }');
  }
  const raw = item.trigger as unknown;
  let trigger: Trigger;
  try {
    trigger =
      typeof raw === 'object' && raw !== null && typeof (raw as Trigger).nextFire === 'function'
        ? (raw as Trigger)
        : triggerFromJSON(raw);
  } catch (err) {
    if (err instanceof TriggerError) {
      throw new ScheduleOptionsError(undefined, where(`trigger.${err.field}`), err.reason, { cause: err });
    }
    if (err instanceof BullbeatError)
      throw new ScheduleOptionsError(undefined, where('trigger'), err.message);
    throw err;
  }
  try {
    return definedJob(define, item.target, trigger, item.options ?? {}, true);
  } catch (err) {
    if (err instanceof ScheduleOptionsError) {
      throw new ScheduleOptionsError(err.scheduleId, where(err.field), err.reason, { cause: err });
    }
    throw err;
  }
}
