import type { EventEmitter } from 'node:events';
import type { JobsOptions, Queue } from 'bullmq';
import type {
  BackfillLedger,
  BackfillOverride,
  OverlapPolicy,
  OwedRun,
  ScheduleDefinition,
} from '../../store/index.js';
import { jobDataFor, type OccurrenceRunOptions, occurrenceJobId, resolveOverlap } from '../../store/index.js';
import type { SchedulerEvents } from '../contract/index.js';

/** What enqueueing taken occurrences needs: the ledger, the queues, the clock of Redis. */
export interface OwedRunsContext {
  ledger: BackfillLedger;
  prefix: string;
  events: EventEmitter<SchedulerEvents>;
  /** Redis `TIME` in ms. */
  time(): Promise<number>;
  queue(name: string): Queue;
  jobOptions(def: ScheduleDefinition, jobId: string): JobsOptions;
}

/**
 * The run options of a taken occurrence's job: its overlap policy resolved into `run.slot` as a
 * schedule's is (`resolveOverlap`), in place of the schedule's own. A catch-up's runs and a backfill's
 * by default are `bufferAll`: each waits for any run of the schedule still going and the taken runs go
 * one after another in fire-time order, whatever the schedule's policy (under `skip` or `cancelOther`
 * they would skip or supersede each other, since they are enqueued together). `allowAll`: no cap.
 * `skip`, `bufferOne` and `cancelOther` mean what they mean on a schedule, one run at a time.
 */
export function owedRunOptions(run: OccurrenceRunOptions, overlap: OverlapPolicy): OccurrenceRunOptions {
  return { ...run, ...resolveOverlap({ overlap, maxInstances: overlap === 'allowAll' ? 0 : 1 }) };
}

/** The definition a backfill's runs are enqueued with: the schedule's, with the backfill's override laid over it. */
export function overriddenDefinition(def: ScheduleDefinition, o: BackfillOverride): ScheduleDefinition {
  return {
    ...def,
    ...(o.names.includes('data') && { data: o.data }),
    ...(o.names.includes('jobOptions') && { jobOptions: { ...def.jobOptions, ...o.jobOptions } }),
  };
}

/** What each record of an overridden backfill's runs says: what is overridden and by whom. */
export function overriddenMark(o: BackfillOverride): { overrides: string; overriddenBy: string } {
  return { overrides: o.names.join(','), overriddenBy: o.by };
}

/** A taken occurrence's job id: a backfill's own (`bb-<id>-b<fireAt>`), a catch-up the occurrence's. */
export function owedJobId(run: OwedRun): string {
  return occurrenceJobId(run.scheduleId, run.fireAt, run.lane === 'backfill' ? 'backfill' : false);
}

/**
 * Enqueue occurrences taken into `def`'s ledger (one `addBulk`, each under its own job id, so a repeat
 * by a replica that found them owed is a no-op), then record them and strike them from the owed set.
 * False when the schedule no longer exists.
 */
export async function enqueueOwed(
  ctx: OwedRunsContext,
  def: ScheduleDefinition,
  runs: readonly OwedRun[],
  /** What a backfill's runs carry instead of the schedule's, and who asked: written on each record. */
  overridden?: { overrides: string; overriddenBy: string },
): Promise<boolean> {
  if (runs.length === 0) return true;
  const jobs = runs.map((r) => {
    const jobId = owedJobId(r);
    const runDef = { ...def, run: owedRunOptions(def.run, r.overlap) };
    const kind = r.lane === 'backfill' ? 'backfill' : 'catch-up';
    return { r, jobId, name: def.name, data: jobDataFor(runDef, r.fireAt, kind, ctx.prefix) };
  });
  // read before the add: a worker's start (Redis TIME) is never before the record's `enqueuedAt`
  const enqueuedAt = await ctx.time();
  await ctx
    .queue(def.queue)
    .addBulk(jobs.map((j) => ({ name: j.name, data: j.data, opts: ctx.jobOptions(def, j.jobId) })));
  const recorded = await ctx.ledger.done(
    def.id,
    jobs.map(({ r, jobId }) => ({
      run: r,
      patch: {
        kind: r.lane,
        outcome: 'enqueued',
        enqueuedAt,
        queue: def.queue,
        jobId,
        ...(r.coalesced !== undefined && { coalesced: r.coalesced }),
        ...overridden,
      },
    })),
  );
  for (const { r, jobId } of jobs) {
    if (r.lane !== 'catch-up') continue;
    ctx.events.emit('fired', {
      scheduleId: def.id,
      name: def.name,
      queue: def.queue,
      fireAt: r.fireAt,
      kind: 'catch-up',
      jobId,
      lateMs: Math.max(0, enqueuedAt - r.fireAt),
    });
  }
  return recorded;
}
