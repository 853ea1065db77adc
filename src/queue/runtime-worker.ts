import { type Job, Worker, type WorkerOptions } from 'bullmq';

/** Where the runtime's runs are stopped by their job (`LiveRuns.cancel`). */
export interface RunCancels {
  cancel(queue: string, jobId: string | undefined, reason?: unknown): boolean;
}

/**
 * BullMQ's `Worker` for the runtime's processor, whose `cancelJob` and `cancelAllJobs` stop the runs
 * through the runner's own stops (`LiveRuns`): the handler's `ctx.signal` aborts with the reason given
 * (an `AbortError` when none), as BullMQ's job signal would.
 *
 * Why: BullMQ makes an `AbortController` for every job when the processor takes a third parameter (its
 * signal), and the runner had to listen on it for the whole run; both cost more than the rest of a
 * run's stop on a busy worker. The processor here takes two, so BullMQ makes none.
 */
export class RuntimeWorker extends Worker {
  readonly #cancels: RunCancels;

  constructor(
    queue: string,
    /** Two parameters, no signal: BullMQ makes a job's `AbortController` for a processor with three. */
    processor: (job: Job, token?: string) => Promise<unknown>,
    opts: WorkerOptions,
    cancels: RunCancels,
  ) {
    super(queue, processor, opts);
    this.#cancels = cancels;
  }

  /** Stop the run of job `jobId` under way here (its signal aborts with `reason`): whether one was. */
  override cancelJob(jobId: string, reason?: string): boolean {
    return this.#cancels.cancel(this.name, jobId, reason);
  }

  /** Stop every run of this queue under way here (their signals abort with `reason`). */
  override cancelAllJobs(reason?: string): void {
    this.#cancels.cancel(this.name, undefined, reason);
  }
}
