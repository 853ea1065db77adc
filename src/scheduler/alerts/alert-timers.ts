/**
 * The timers the alerts run on (the expectations watch, the outbox's sender, the heartbeat): the
 * process's in production, unref'd, so that they never keep a process alive; a manual clock's in tests
 * (the fire loop's `hooks.clock`, test/queue/manual-clock.ts), so that checks, retries and beats are
 * tested without sleeping through their periods. Their time is Redis's (`AlertStore.time`), as before.
 */
export interface AlertTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process's timers, unref'd. */
export const processTimers: AlertTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Call `fn` every `ms` on `timers` (as `setInterval` does: the next call armed before each one); returns its stop. */
export function repeatEvery(timers: AlertTimers, ms: number, fn: () => void): () => void {
  let handle: unknown;
  let stopped = false;
  const arm = () => {
    handle = timers.setTimeout(() => {
      if (stopped) return;
      arm();
      fn();
    }, ms);
  };
  arm();
  return () => {
    stopped = true;
    timers.clearTimeout(handle);
  };
}
