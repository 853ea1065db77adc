import type { Job, Worker } from 'bullmq';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { bounded, DURATION_BUCKETS, type ProcessMetricsOptions, scheduleLabel } from './metrics-options.js';

/** What the worker metrics read from a `WorkerHandle`. */
export interface WorkerMetricsSource {
  readonly queues: readonly string[];
  readonly workers: readonly Worker[];
  running(): number;
  /** The runtime's events (`WorkerHandle.events`): `pausedOnFailure` is counted. */
  readonly events?: {
    on(event: 'pausedOnFailure', listener: (e: { queue?: string }) => void): unknown;
    off(event: 'pausedOnFailure', listener: (e: { queue?: string }) => void): unknown;
  };
}

const SKIPS = new Set(['overlap', 'exclusion-group', 'group', 'buffer-full', 'superseded']);

/**
 * A worker process's own metrics, from its BullMQ workers' `completed` and `failed` events: runs by
 * outcome (`succeeded`, `failed`, `retrying` when BullMQ will try again, `skipped`), run durations
 * (BullMQ `finishedOn - processedOn`), runs in flight, lease losses and skips by reason. Labels are
 * bounded: `queue` (the queues this worker consumes), `outcome`, `reason`, and a `schedule` label
 * only for the ids opted in.
 */
export class WorkerMetrics {
  private readonly detach: (() => void)[] = [];

  constructor(registry: Registry, source: WorkerMetricsSource, options: ProcessMetricsOptions = {}) {
    const registers = [registry];
    const opted = options.scheduleLabels?.length ? new Set(options.scheduleLabels) : undefined;
    const withSchedule = (names: string[]) => (opted ? [...names, 'schedule'] : names);
    const runs = new Counter({
      name: 'bullbeat_runs_total',
      help: 'Occurrence jobs this worker finished, by queue and outcome (succeeded, failed, retrying, skipped, cancelled)',
      labelNames: withSchedule(['queue', 'outcome']),
      registers,
    });
    const durations = new Histogram({
      name: 'bullbeat_run_duration_seconds',
      help: 'Run duration (BullMQ finishedOn - processedOn) of the jobs this worker finished, by queue and outcome',
      labelNames: withSchedule(['queue', 'outcome']),
      buckets: DURATION_BUCKETS,
      registers,
    });
    const skips = new Counter({
      name: 'bullbeat_skips_total',
      help: 'Occurrences this worker did not run when about to start them, by reason (overlap, exclusion-group)',
      labelNames: ['queue', 'reason'],
      registers,
    });
    const leaseLosses = new Counter({
      name: 'bullbeat_lease_losses_total',
      help: 'Runs aborted because their overlap lease was found given away (this process stalled past the lease TTL)',
      labelNames: ['queue'],
      registers,
    });
    const pausedOnFailure = new Counter({
      name: 'bullbeat_paused_on_failure_total',
      help: 'Schedules this worker paused because their failed runs in a row reached pauseOnFailure, by queue',
      labelNames: ['queue'],
      registers,
    });
    new Gauge({
      name: 'bullbeat_runs_in_flight',
      help: 'Jobs running in this worker process right now',
      registers,
      collect() {
        this.set(source.running());
      },
    });
    // Every bounded series exists from the start at 0, so that rates and alerts see it before it moves.
    for (const queue of source.queues) {
      for (const outcome of ['succeeded', 'failed', 'retrying', 'skipped', 'cancelled']) {
        runs.inc({ queue, outcome, ...scheduleLabel(opted, undefined) }, 0);
      }
      for (const outcome of ['succeeded', 'failed']) {
        durations.zero({ queue, outcome, ...scheduleLabel(opted, undefined) });
      }
      for (const reason of SKIPS) skips.inc({ queue, reason }, 0);
      leaseLosses.inc({ queue }, 0);
      pausedOnFailure.inc({ queue }, 0);
    }
    const onPaused = (e: { queue?: string }) => {
      const queue = e.queue && source.queues.includes(e.queue) ? e.queue : (source.queues[0] ?? 'unknown');
      pausedOnFailure.inc({ queue });
    };
    source.events?.on('pausedOnFailure', onPaused);
    this.detach.push(() => source.events?.off('pausedOnFailure', onPaused));

    source.workers.forEach((worker, i) => {
      const queue = source.queues[i] ?? worker.name;
      const labels = (job: Job, outcome: string) => ({
        queue,
        outcome,
        ...scheduleLabel(opted, (job.data as { scheduleId?: string } | undefined)?.scheduleId),
      });
      const observe = (job: Job, outcome: string) => {
        runs.inc(labels(job, outcome));
        // A failed attempt that BullMQ will retry has no finishedOn: it ended now.
        if (job.processedOn !== undefined) {
          const end = job.finishedOn ?? Date.now();
          durations.observe(labels(job, outcome), Math.max(0, end - job.processedOn) / 1000);
        }
      };
      const onCompleted = (job: Job, result: unknown) => {
        const skipped = (result as { skipped?: unknown } | null)?.skipped;
        if ((result as { cancelled?: unknown } | null)?.cancelled === true) {
          observe(job, 'cancelled');
        } else if (typeof skipped === 'string') {
          runs.inc(labels(job, 'skipped'));
          skips.inc({ queue, reason: bounded(SKIPS, skipped) });
        } else {
          observe(job, 'succeeded');
        }
      };
      const onFailed = (job: Job | undefined, err: Error) => {
        if (err?.name === 'LeaseLostError') leaseLosses.inc({ queue });
        if (!job) return;
        const attempts = job.opts.attempts ?? 1;
        observe(
          job,
          job.attemptsMade < attempts && err?.name !== 'UnrecoverableError' ? 'retrying' : 'failed',
        );
      };
      worker.on('completed', onCompleted);
      worker.on('failed', onFailed);
      this.detach.push(() => {
        worker.off('completed', onCompleted);
        worker.off('failed', onFailed);
      });
    });
  }

  /** Stop listening to the workers. */
  close(): void {
    for (const d of this.detach.splice(0)) d();
  }
}
