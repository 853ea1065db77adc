import { ScheduleNotFoundError } from '../errors/index.js';
import type { ScheduledJob, SchedulerManager } from '../scheduler/index.js';
import { internalsOf } from '../scheduler/index.js';
import {
  BullmqHandovers,
  claimInFlight,
  claimReplica,
  type OccurrenceJobData,
  redisTime,
  resolveRunOptions,
  runLease,
} from '../store/index.js';
import { describeTrigger } from '../triggers/describe-trigger.js';
import { calendarsOf, calendarVerdict } from './calendar-insight.js';
import { expectedAtOrBefore } from './expected-occurrence.js';
import { explainOccurrence } from './explain-occurrence.js';
import { storedTrigger } from './stored-trigger.js';
import type { WhyFacts, WhyReport } from './why-types.js';

/** Options of `whyDidntItRun`. */
export interface WhyOptions {
  /** The occurrence at or before this instant (epoch ms) is explained. Default: now (Redis time). */
  at?: number;
}

/**
 * "Why didn't it run?": for the occurrence of schedule `id` at or before `options.at` (default: the
 * latest), the chain of facts from the records (the trigger's instant, zone and DST rule; the claim;
 * the job; the worker; the outcome) or the first missing link. Reads only: the schedule, its kept
 * history, its claim in flight, and (while it waits) its BullMQ job and the queue's worker count.
 * Throws `ScheduleNotFoundError` for an unknown id.
 */
export async function whyDidntItRun(
  manager: SchedulerManager,
  id: string,
  options: WhyOptions = {},
): Promise<WhyReport> {
  const job = await manager.get(id);
  if (!job) throw new ScheduleNotFoundError(id);
  const now = await redisTime(internalsOf(manager).redis);
  const at = options.at ?? now;
  const records = await manager.history(id, internalsOf(manager).options.historyLimit);
  const trigger = storedTrigger(job, await calendarsOf(manager, [job]));
  const hint =
    records.find((r) => r.kind !== 'manual' && r.kind !== 'backfill' && r.fireAt <= at)?.fireAt ?? null;
  const def = job.def;
  const json = job.toJSON();
  const handover = await new BullmqHandovers(internalsOf(manager).redis, internalsOf(manager).keys).get(id);
  // an imported schedule starts after BullMQ's last job: its occurrences before that are BullMQ's
  const bullmqSide = handover !== null && handover.createdAt === json.createdAt;
  const occurrence = trigger
    ? expectedAtOrBefore(
        trigger,
        at,
        { startAt: bullmqSide ? undefined : def.startAt, endAt: def.endAt },
        hint,
      )
    : null;
  const byCalendar = calendarVerdict(trigger, job, at, now, occurrence?.planned ?? null);
  if (byCalendar) return byCalendar;
  const facts: WhyFacts = {
    now,
    at,
    schedule: {
      id: job.id,
      name: job.name,
      queue: job.queue,
      status: json.status,
      orphaned: json.orphaned,
      error: json.error,
      pauseNote: json.pauseNote,
      nextRunTime: json.nextRunTime,
      createdAt: json.createdAt,
      misfire: def.misfire,
      misfireGraceMs: def.misfireGraceMs,
      maxInstances: def.run.maxInstances,
      overlap: def.run.overlap,
      startAt: def.startAt,
      exclusionGroup: def.run.exclusionGroup,
      trigger: triggerWords(def.trigger),
      triggerKnown: trigger !== undefined,
    },
    occurrence,
    records,
    historyLimit: internalsOf(manager).options.historyLimit,
    claim: await claimOf(manager, id),
    handover,
    lateThresholdMs: Math.max(
      internalsOf(manager).options.lateThresholdMs,
      internalsOf(manager).options.claimAheadMs + 1000,
    ),
  };
  // A record still `enqueued` (or none, with nothing else to say): look at the job and the queue.
  const first = explainOccurrence(facts);
  // Left to BullMQ's job scheduler: look at BullMQ's own job of the occurrence.
  if (first.cause === 'bullmq' && handover && occurrence) {
    const bull = await internalsOf(manager)
      .queue(handover.queue)
      .getJob(`repeat:${handover.scheduler}:${occurrence.planned}`);
    facts.bullmqJob = bull ? { state: await bull.getState() } : null;
    return explainOccurrence(facts);
  }
  // A record `running`: is its run going on (its slot lease renewed, its job active)?
  if (first.cause === 'running' && first.record?.jobId) {
    const jobId = first.record.jobId;
    const bull = await internalsOf(manager)
      .queue(first.record.queue ?? job.queue)
      .getJob(jobId);
    const data = bull?.data as Partial<OccurrenceJobData> | undefined;
    const takesLease = resolveRunOptions(data?.run).slot.mode !== 'none';
    const lease = await runLease(internalsOf(manager).redis, internalsOf(manager).keys, id, jobId);
    facts.run = {
      lease: lease === 'none' && takesLease && bull ? 'lapsed' : lease,
      jobState: bull ? await bull.getState() : null,
    };
    return explainOccurrence(facts);
  }
  if (first.cause !== 'waiting' || !first.record?.jobId) return first;
  const queue = internalsOf(manager).queue(first.record.queue ?? job.queue);
  const bull = await queue.getJob(first.record.jobId);
  facts.job = bull ? { state: await bull.getState(), failedReason: bull.failedReason } : null;
  facts.queueWorkers = await queue.getWorkersCount();
  return explainOccurrence(facts);
}

function triggerWords(spec: ScheduledJob['def']['trigger']): string {
  if (spec.type === 'custom') return `custom trigger (${spec.kind})`;
  try {
    return describeTrigger(spec);
  } catch {
    return JSON.stringify(spec);
  }
}

/** The schedule's claim in flight: its fire time, the replica that took it, its lease expiry. */
async function claimOf(manager: SchedulerManager, id: string): Promise<WhyFacts['claim']> {
  const claim = await claimInFlight(internalsOf(manager).redis, internalsOf(manager).keys, id);
  if (!claim) return null;
  return { fireAt: claim.fireAt, replica: claimReplica(claim), leaseExpiresAt: claim.leaseExpiresAt };
}
