import type { Job } from 'bullmq';
import type { PreviousAttempt, RunRecord } from '../store/index.js';

/** Where one delivery of an occurrence's job stands among its attempts. */
export interface AttemptState {
  /** This attempt's number (1 on the first); attempts lost with their worker count. */
  attempt: number;
  /** An attempt after one that started: it waits for its run slot rather than being skipped. */
  owed: boolean;
  /**
   * The attempt found lost: the record said it was running (or BullMQ counted a stall that the record
   * does not know yet), and BullMQ delivered its job again.
   */
  lost?: PreviousAttempt;
  /** The earlier attempts, oldest first, `lost` included. */
  previous: PreviousAttempt[];
}

/**
 * Decide the attempt of a delivery from BullMQ's count of failed attempts and the occurrence's
 * record. BullMQ re-delivers the job of a worker that died (its stalled check) without counting an
 * attempt; the record still says `running` for this job: that attempt was lost, and this is the next.
 * A record of another job (an older one of a manual retry, a foreign writer) is not this run's story.
 */
export function attemptState(
  job: { id?: string | undefined; attemptsMade: number; stalledCounter?: number },
  record: RunRecord | null,
  now: number,
): AttemptState {
  const ours = record && job.id !== undefined && record.jobId === job.id ? record : null;
  const inFlight = ours && (ours.outcome === 'running' || ours.outcome === 'retrying') ? ours : null;
  const previous = [...(inFlight?.previousAttempts ?? [])];
  let lost: PreviousAttempt | undefined;
  if (inFlight?.outcome === 'running' && inFlight.attempts) {
    lost = {
      attempt: inFlight.attempts,
      outcome: 'lost',
      error: `attempt ${inFlight.attempts} was lost with its worker${inFlight.worker ? ` (${inFlight.worker})` : ''}`,
      ...(inFlight.startedAt !== undefined && { startedAt: inFlight.startedAt }),
      endedAt: now,
      ...(inFlight.worker !== undefined && { worker: inFlight.worker }),
    };
    previous.push(lost);
  }
  let attempt = Math.max(job.attemptsMade + 1, (inFlight?.attempts ?? 0) + 1);
  // An attempt lost before its `running` record was written (within `recordLagMs` of its start) left
  // no trace in the record, but BullMQ counted its stall (`stalledCounter`): listed lost, its start
  // not known.
  const stalls = job.stalledCounter ?? 0;
  for (let seen = lostAttempts(previous); seen < stalls; seen++) {
    lost = {
      attempt,
      outcome: 'lost',
      error: `attempt ${attempt} was lost with its worker (before its start was recorded)`,
      endedAt: now,
    };
    previous.push(lost);
    attempt++;
  }
  const state: AttemptState = { attempt, owed: attempt > 1, previous };
  if (lost) state.lost = lost; // (not a conditional spread: this runs once per run)
  return state;
}

/** The attempts a job may make (BullMQ's `attempts` option; unset or 0 means one). */
export function attemptsAllowed(job: Job): number {
  return Math.max(1, job.opts.attempts ?? 1);
}

/** How many of the earlier attempts were lost with their worker (they do not use up `attempts`). */
export function lostAttempts(previous: readonly { outcome: string }[]): number {
  return previous.filter((a) => a.outcome === 'lost').length;
}

/**
 * BullMQ failed this job without handing it to the processor: it stalled more often than its
 * `maxStalledCount` (a deferred failure, applied when a worker next takes it) or started more than
 * `maxStartedAttempts` times. The processor never saw it, so its record is not written yet.
 */
export function failedBeforeProcessing(job: Job, error: Error): boolean {
  return (
    error.name === 'UnrecoverableError' &&
    ((job.deferredFailure !== undefined && error.message === job.deferredFailure) ||
      error.message === 'job started more than allowable limit')
  );
}
