import { performance } from 'node:perf_hooks';

/**
 * The fire loop's time source: this process's monotonic clock and timers in production, a manual one
 * in tests (`test/queue/manual-clock.ts`), so that planning and claiming are tested without sleeping.
 * Redis's own clock is learnt on top of it (see `RedisClock`).
 */
export interface FireClock {
  /** Monotonic milliseconds (`performance.now()`). */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process's monotonic clock and timers. */
export const monotonicClock: FireClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
