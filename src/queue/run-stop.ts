/**
 * One run's stop: the `AbortController` behind the handler's `ctx.signal`, and the runner's own wait
 * on it. Whatever stops a run (the worker's shutdown, `Worker.cancelJob`, a lease lost or asked to
 * stop) calls `stop(reason)`; `race` settles the run at once then, whether or not the handler heeds its
 * signal.
 *
 * Why not `AbortSignal.any` or a listener per source: on the hot path of a busy worker (thousands of
 * runs a second) Node's `EventTarget` listeners cost more than the rest of the runner's JavaScript, and
 * a listener on the shared shutdown signal per run scans every other run's listener when added. So the
 * shutdown is one listener for all the runs under way (`LiveRuns`), a cancel through BullMQ's worker
 * finds its run there (BullMQ makes no `AbortController` per job: see `RuntimeWorker`), and the
 * runner's wait is a plain callback here. The `AbortSignal` itself is made only when asked for (a handler that reads `ctx.signal`,
 * a middleware, a group's wait): making one costs more than the rest of a run's stop.
 */
export class RunStop {
  /** Made when the signal is first asked for: most runs never are (Node's `AbortSignal` is not cheap). */
  #controller: AbortController | undefined;
  #stopped = false;
  #reason: unknown;
  private onStop: ((reason: unknown) => void) | undefined;

  /** The handler's signal: aborts with the reason of the first `stop` (aborted already if it came). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#stopped) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Stop the run with `reason` (the first call wins; later ones do nothing). */
  stop(reason: unknown): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.onStop?.(reason);
  }

  /** `promise`, or a rejection with the stop's reason as soon as the run is stopped. One race per run. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.#stopped) {
      promise.catch(() => {});
      return Promise.reject(this.#reason);
    }
    return new Promise<T>((resolve, reject) => {
      this.onStop = reject;
      promise.then(resolve, reject);
    });
  }
}

/** What `LiveRuns` knows of a run's job: where `cancelJob` finds it. */
export interface LiveJob {
  readonly queueName: string;
  readonly id?: string | undefined;
}

/**
 * The runs under way in one worker handle: each stopped when the shutdown's grace period has passed
 * (one listener on the shutdown signal for all of them), and by `cancel` (BullMQ's `Worker.cancelJob`,
 * `cancelAllJobs`: see `RuntimeWorker`), which finds a run by its job's queue and id.
 */
export class LiveRuns {
  /** Each run under way, with its job. */
  private readonly runs = new Map<RunStop, LiveJob>();

  constructor(
    /** Aborts (with a `WorkerShutdownError`) when the grace period of a shutdown has passed. */
    private readonly shutdown: AbortSignal,
  ) {
    shutdown.addEventListener(
      'abort',
      () => {
        for (const run of this.runs.keys()) run.stop(shutdown.reason);
      },
      { once: true },
    );
  }

  /** A run of `job` begins: its stop, stopped at once when the shutdown came already. Call `end` when it is over. */
  begin(job: LiveJob): RunStop {
    const stop = new RunStop();
    if (this.shutdown.aborted) stop.stop(this.shutdown.reason);
    this.runs.set(stop, job);
    return stop;
  }

  /** The run is over: neither the shutdown nor `cancel` stops it any more. */
  end(stop: RunStop): void {
    this.runs.delete(stop);
  }

  /**
   * Stop the runs under way of job `jobId` in `queue` (every one of the queue's when `jobId` is
   * undefined) with `reason`, or, as BullMQ's job signal has it, an `AbortError` when none is given.
   * Whether one was under way. A scan: runs are few (the worker's concurrency), cancels rare.
   */
  cancel(queue: string, jobId: string | undefined, reason?: unknown): boolean {
    const why = reason ?? new DOMException('This operation was aborted', 'AbortError');
    let found = false;
    for (const [stop, job] of this.runs) {
      if (job.queueName !== queue || (jobId !== undefined && job.id !== jobId)) continue;
      found = true;
      stop.stop(why);
    }
    return found;
  }
}
