/**
 * One run's stop: the `AbortController` behind the handler's `ctx.signal`, and the runner's own wait
 * on it. Whatever stops a run (the worker's shutdown, BullMQ's job signal, a lease lost or asked to
 * stop) calls `stop(reason)`; `race` settles the run at once then, whether or not the handler heeds its
 * signal.
 *
 * Why not `AbortSignal.any` or a listener per source: on the hot path of a busy worker (thousands of
 * runs a second) Node's `EventTarget` listeners cost more than the rest of the runner's JavaScript, and
 * a listener on the shared shutdown signal per run scans every other run's listener when added. So the
 * shutdown is one listener for all the runs under way (`LiveRuns`), and the runner's wait is a plain
 * callback here. The `AbortSignal` itself is made only when asked for (a handler that reads `ctx.signal`,
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

/**
 * The runs under way in one worker handle: each stopped when the shutdown's grace period has passed
 * (one listener on the shutdown signal for all of them), and by BullMQ's signal of its own job.
 */
export class LiveRuns {
  private readonly runs = new Set<RunStop>();

  constructor(
    /** Aborts (with a `WorkerShutdownError`) when the grace period of a shutdown has passed. */
    private readonly shutdown: AbortSignal,
  ) {
    shutdown.addEventListener(
      'abort',
      () => {
        for (const run of this.runs) run.stop(shutdown.reason);
      },
      { once: true },
    );
  }

  /**
   * A run begins: its stop, stopped at once when the shutdown came already, or when BullMQ aborts
   * `jobSignal` (`Worker.cancelJob`). Call `end` when the run is over.
   */
  begin(jobSignal: AbortSignal | undefined): { stop: RunStop; end(): void } {
    const stop = new RunStop();
    if (this.shutdown.aborted) stop.stop(this.shutdown.reason);
    this.runs.add(stop);
    const onJobAbort = jobSignal && (() => stop.stop(jobSignal.reason));
    if (jobSignal?.aborted) stop.stop(jobSignal.reason);
    else if (onJobAbort) jobSignal.addEventListener('abort', onJobAbort, { once: true });
    return {
      stop,
      end: () => {
        this.runs.delete(stop);
        if (onJobAbort) jobSignal.removeEventListener('abort', onJobAbort);
      },
    };
  }
}
