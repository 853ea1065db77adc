import type { Logger } from 'pino';
import type { SkipReason } from '../store/index.js';

// What the worker runtime hands back for one job beside the handler's own result, and what it emits.

/** What a job that was not run returns to BullMQ (its `returnvalue`). */
export interface SkippedResult {
  skipped: SkipReason;
  group?: string;
}

/** What a run cancelled by a newer occurrence (overlap `cancelOther`) returns to BullMQ. */
export interface CancelledResult {
  cancelled: true;
}

/** Emitted (on the scheduler and the worker handle's `events`) when a schedule paused itself. */
export interface PausedOnFailureEvent {
  scheduleId: string;
  name: string;
  fireAt: number;
  /** The schedule's `pauseOnFailure`: final failures in a row. */
  failures: number;
  error: Error;
  /** The pause note stored with it (`keys.pauseNotes`, `by: 'pauseOnFailure'`). */
  note: string;
}

/** A pause note says at most this much of the error. */
const NOTE_ERROR_CHARS = 300;

/** The note a schedule paused by `pauseOnFailure` carries, naming the last error. */
export function pauseNote(failures: number, error: string): string {
  const e = error.length > NOTE_ERROR_CHARS ? `${error.slice(0, NOTE_ERROR_CHARS)}…` : error;
  return `paused after ${failures} failed run${failures === 1 ? '' : 's'} in a row; last error: ${e}`;
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
