import type { Job } from 'bullmq';
import type { Logger } from 'pino';

// Small pieces of the occurrence runner that need none of its state.

/** The attempts a job may make (BullMQ's `attempts` option; unset or 0 means one). */
export function attemptsAllowed(job: Job): number {
  return Math.max(1, job.opts.attempts ?? 1);
}

/** How many of the earlier attempts were lost with their worker (they do not use up `attempts`). */
export function lostAttempts(previous: readonly { outcome: string }[]): number {
  return previous.filter((a) => a.outcome === 'lost').length;
}

/** The handler's result as BullMQ's return value, or undefined when it does not survive JSON. */
export function serializable(result: unknown, logger: Logger): unknown {
  try {
    JSON.stringify(result);
    return result;
  } catch (err) {
    logger.warn({ err }, 'the handler result is not JSON-serializable; the job keeps no return value');
    return undefined;
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts (a handler that ignores it). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Abort `target` when any of `sources` aborts (with its reason), at once for one aborted already.
 * Returns the unlink, to call when the run ends (the sources outlive it).
 */
export function linkAborts(target: AbortController, ...sources: (AbortSignal | undefined)[]): () => void {
  const linked: [AbortSignal, () => void][] = [];
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      if (!target.signal.aborted) target.abort(source.reason);
      continue;
    }
    const onAbort = () => {
      if (!target.signal.aborted) target.abort(source.reason);
    };
    source.addEventListener('abort', onAbort, { once: true });
    linked.push([source, onAbort]);
  }
  return () => {
    for (const [source, onAbort] of linked) source.removeEventListener('abort', onAbort);
  };
}
