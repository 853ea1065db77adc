import type { EventEmitter } from 'node:events';
import { type Job, UnrecoverableError } from 'bullmq';
import type { Logger } from 'pino';
import type { RunCounter, RunPatch } from '../store/index.js';
import { laterInThisTrace } from '../tracing/run-tracing.js';
import { type AttemptState, attemptState, attemptsAllowed, lostAttempts } from './attempt-state.js';
import type { HeldLeases } from './held-leases.js';
import { lazyChild } from './lazy-logger.js';
import type { Occurrence, OccurrenceSource } from './occurrence-source.js';
import { type PausedOnFailureEvent, pauseNote, type SkippedResult } from './run-results.js';
import type { ResolvedWorkerOptions } from './worker-options.js';
import type { WorkerScheduler } from './worker-scheduler.js';

/** The run under way: its lease (when its overlap rule takes one) and fencing token. */
export interface RunTicket {
  leaseId: string | undefined;
  fencingToken: number | undefined;
  /**
   * The run's `running` record while it is written behind (`recordLagMs`): written with the outcome
   * when the run ends first, else by the flush; unset once written.
   */
  unwritten?: RunPatch;
}

/** How often a held outcome's queue is looked at (ms) while jobs wait on it. */
const HOLD_STEP_MS = 25;

/** An outcome held behind a burst (see `holdFinish`). */
interface HeldOutcome {
  occurrence: Occurrence;
  job: Job;
  fencingToken: number | undefined;
  logger: Logger;
  patch: RunPatch;
  counters: readonly RunCounter[];
  streak: 'ok' | 'failed' | undefined;
  /** `Date.now()` when the run ended. */
  at: number;
  /** Runs the write in the run's trace (its `bullbeat.record` step). */
  inTrace: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** A run whose `running` record is written behind, and when it is due at the latest. */
interface Behind {
  occurrence: Occurrence;
  logger: Logger;
  /** `Date.now()` after which the flush writes it. */
  due: number;
}

/**
 * How a run's outcome is told: its record and counters with its slot given back (`RunSlots.finish`),
 * the `failed`, `skipped` and `pausedOnFailure` events, and the next run in line promoted.
 */
export class RunRecorder {
  /** The runs whose `running` record is not written yet, oldest first (see `writeBehind`). */
  private readonly behind = new Map<RunTicket, Behind>();
  private flushTimer: NodeJS.Timeout | undefined;
  /** Outcomes held behind a burst, oldest first (see `holdFinish`), and their writer while it runs. */
  private readonly held: HeldOutcome[] = [];
  private writingHeld: Promise<void> | undefined;
  /** Set at close: held outcomes are written at once. */
  private closing = false;
  private wakeHeld: (() => void) | undefined;

  constructor(
    private readonly scheduler: WorkerScheduler,
    private readonly options: ResolvedWorkerOptions,
    private readonly source: OccurrenceSource,
    /** This worker, as the records name it. */
    readonly workerId: string,
    /** Where `pausedOnFailure` is emitted for this process (the handle's `events`: metrics). */
    private readonly events?: EventEmitter,
    /** Moves a delayed job of `queue` to wait at once (the next in line for a slot that just freed). */
    private readonly promote?: (queue: string, jobId: string) => Promise<void>,
    /** Whether jobs wait on any of these queues (a burst still being started); none: never hold. */
    private readonly waiting?: (queues: readonly string[]) => Promise<boolean>,
  ) {}

  /**
   * Record a job that BullMQ failed before the processor saw it (`failedBeforeProcessing`: its workers
   * died mid-run more often than `maxStalledCount`). Its record still says `running` for the attempt
   * lost with its worker: the run is recorded `failed`, that attempt listed as lost, and counted as a
   * final failure (`pauseOnFailure`), fenced by the lost attempt's token (a newer run's record is
   * left alone). A record of another job, or one not in flight, is left alone.
   */
  async recordFailedBeforeProcessing(job: Job, error: Error): Promise<void> {
    const occurrence = await this.source.of(job);
    const record = await this.source.readRecord(occurrence);
    // None, or `enqueued`: its attempts were lost before their `running` record was written
    // (`recordLagMs`); BullMQ's stall count tells them (attemptState).
    if (record && record.jobId !== undefined && record.jobId !== job.id) return;
    if (record && !['running', 'retrying', 'enqueued'].includes(record.outcome)) return;
    // BullMQ counted this failure in attemptsMade already: the attempts before it are one fewer
    const before = {
      id: job.id,
      attemptsMade: Math.max(0, job.attemptsMade - 1),
      stalledCounter: job.stalledCounter,
    };
    const state = attemptState(before, record, this.options.clock.now());
    // the attempt that ended is the lost one (or the one that failed, while `retrying`)
    const ended = {
      ...state,
      attempt: state.lost?.attempt ?? record?.attempts ?? Math.max(1, state.attempt - 1),
    };
    const why = state.lost
      ? `${state.lost.error}, and BullMQ failed its job: ${error.message}`
      : error.message;
    const ticket: RunTicket = { leaseId: undefined, fencingToken: record?.fencingToken };
    const logger = this.loggerFor(occurrence, job, ended);
    await this.recordFailure(occurrence, job, ended, ticket, undefined, new UnrecoverableError(why), logger);
  }

  /**
   * Write the run's `running` record (`ticket.unwritten`) behind: with its outcome if it ends within
   * `recordLagMs` (`finish` merges the two into one write), else when it has run that long. Nothing of
   * it is on the way from the start check to the handler.
   */
  writeBehind(occurrence: Occurrence, ticket: RunTicket, logger: Logger): void {
    this.behind.set(ticket, { occurrence, logger, due: Date.now() + this.options.recordLagMs });
    this.armFlush();
  }

  /** Write every record still behind, and every outcome held, now (the worker is closing). */
  async flushAll(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.closing = true;
    this.wakeHeld?.();
    const all = [...this.behind];
    this.behind.clear();
    await Promise.all(all.map(([ticket, b]) => this.writeRunning(ticket, b)));
    while (this.writingHeld) await this.writingHeld;
  }

  /**
   * Write a run's outcome behind the burst it ran in (decision 2 of the load issue): its slot is given
   * back by the caller at once (`HeldLeases.releaseAll`), and the outcome, with its `running` facts
   * when those were behind too, is written once no job waits on its queue, or `outcomeHoldMs` after
   * the oldest held one ended, in one batch. The write is fenced by the run's token (its lease is gone
   * by then), and its `finishedAt` is the run's end on Redis's clock (`finishedAt`), not the write's.
   */
  holdFinish(
    occurrence: Occurrence,
    job: Job,
    ticket: RunTicket,
    logger: Logger,
    patch: RunPatch & { finishedAt: number },
    counters: readonly RunCounter[],
    streak?: 'ok' | 'failed',
  ): void {
    if (ticket.unwritten) {
      patch = Object.assign({}, ticket.unwritten, patch); // not a spread of two: ~15x dearer in V8
      ticket.unwritten = undefined;
      this.behind.delete(ticket);
    }
    const { fencingToken } = ticket;
    const inTrace = laterInThisTrace();
    this.held.push({
      occurrence,
      job,
      fencingToken,
      logger,
      patch,
      counters,
      streak,
      at: Date.now(),
      inTrace,
    });
    this.startWritingHeld();
  }

  private startWritingHeld(): void {
    this.writingHeld ??= this.writeHeld().finally(() => {
      this.writingHeld = undefined;
      if (this.held.length > 0) this.startWritingHeld(); // held while the last batch was written
    });
  }

  /** Write the held outcomes, batch after batch, each once its burst is over (see `holdFinish`). */
  private async writeHeld(): Promise<void> {
    while (this.held.length > 0) {
      await this.afterBurst();
      const batch = this.held.splice(0);
      await Promise.all(
        batch.map((h) =>
          h.inTrace(() =>
            this.finish(
              h.occurrence,
              h.job,
              undefined,
              { leaseId: undefined, fencingToken: h.fencingToken },
              h.logger,
              h.patch,
              h.counters,
              h.streak,
              undefined,
              true,
            ),
          ),
        ),
      );
    }
  }

  /** Resolve once no job waits on the held outcomes' queues, or the oldest was held long enough. */
  private async afterBurst(): Promise<void> {
    for (;;) {
      const left = this.options.outcomeHoldMs - (Date.now() - (this.held[0] as HeldOutcome).at);
      if (this.closing || left <= 0 || !this.waiting) return;
      const queues = new Set(this.held.map((h) => h.job.queueName));
      try {
        if (!(await this.waiting([...queues]))) return;
      } catch {
        return; // cannot tell: write now
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(HOLD_STEP_MS, left));
        this.wakeHeld = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeHeld = undefined;
    }
  }

  private armFlush(): void {
    if (this.flushTimer || this.behind.size === 0) return;
    const [oldest] = this.behind.values();
    this.flushTimer = setTimeout(
      () => {
        this.flushTimer = undefined;
        void this.flushDue();
      },
      Math.max(0, (oldest as Behind).due - Date.now()),
    );
    this.flushTimer.unref();
  }

  /** Write the records behind that are due (they were added in start order: the due ones come first). */
  private async flushDue(): Promise<void> {
    const now = Date.now();
    const due: [RunTicket, Behind][] = [];
    for (const entry of this.behind) {
      if (entry[1].due > now) break;
      due.push(entry);
      this.behind.delete(entry[0]);
    }
    this.armFlush();
    await Promise.all(due.map(([ticket, b]) => this.writeRunning(ticket, b)));
  }

  /**
   * The run's `running` record, fenced by its token (`RunSlots.writeRunning`), so that a run that
   * stalled and woke after a newer attempt wrote does not write over it.
   */
  private async writeRunning(ticket: RunTicket, b: Behind): Promise<void> {
    const patch = ticket.unwritten;
    if (!patch) return;
    ticket.unwritten = undefined;
    try {
      await b.occurrence.slots.writeRunning(
        b.occurrence,
        ticket.fencingToken,
        patch,
        b.occurrence.run.slot.mode,
      );
    } catch (err) {
      b.logger.error({ err, patch }, 'could not write the running record');
    }
  }

  /** The logger of one delivery, made when first used (`lazyChild`: a run that succeeds logs nothing). */
  loggerFor(occurrence: Occurrence, job: Job, state: AttemptState): Logger {
    return lazyChild(this.options.logger, {
      scheduleId: occurrence.scheduleId,
      fireAt: occurrence.fireAt,
      jobId: job.id,
      attempt: state.attempt,
    });
  }

  emitSkip(occurrence: Occurrence, job: Job, skipped: SkippedResult) {
    this.emit('skipped', {
      scheduleId: occurrence.scheduleId,
      name: job.name,
      fireAt: occurrence.fireAt,
      reason: skipped.skipped,
      ...(skipped.group ? { group: skipped.group } : {}),
      jobId: job.id,
    });
  }

  /** Record a failed attempt: `retrying` while attempts remain, else `failed`. Returns whether final. */
  async recordFailure(
    occurrence: Occurrence,
    job: Job,
    state: AttemptState,
    ticket: RunTicket,
    startedAt: number | undefined,
    error: unknown,
    logger: Logger,
    held?: HeldLeases,
  ): Promise<boolean> {
    const message = error instanceof Error ? error.message : String(error);
    const attempt = state.attempt;
    const final =
      !(attempt < attemptsAllowed(job) + lostAttempts(state.previous)) || error instanceof UnrecoverableError;
    logger.warn({ err: error, final }, final ? 'run failed' : 'run failed; BullMQ will retry');
    const now = this.options.clock.now();
    if (final) {
      const outcome = await this.finish(
        occurrence,
        job,
        held,
        ticket,
        logger,
        {
          outcome: 'failed',
          finishedAt: now,
          error: message,
          attempts: attempt,
          previousAttempts: state.previous.length > 0 ? state.previous : null,
          ...this.source.jobFields(job),
        },
        ['runs', 'errors'],
        'failed',
        message,
      );
      const asError = error instanceof Error ? error : new Error(message);
      this.emit('failed', {
        scheduleId: occurrence.scheduleId,
        name: job.name,
        fireAt: occurrence.fireAt,
        attempts: attempt,
        error: asError,
        jobId: job.id,
      });
      if (outcome?.paused) {
        const failures = occurrence.run.pauseOnFailure ?? 0;
        const event: PausedOnFailureEvent = {
          scheduleId: occurrence.scheduleId,
          name: job.name,
          fireAt: occurrence.fireAt,
          failures,
          error: asError,
          note: pauseNote(failures, message),
        };
        logger.warn({ failures }, 'paused: pauseOnFailure reached');
        this.emit('pausedOnFailure', event);
        this.events?.emit('pausedOnFailure', { ...event, queue: job.queueName });
      }
    } else {
      const failed = {
        attempt,
        outcome: 'failed' as const,
        error: message,
        ...(startedAt !== undefined && { startedAt }),
        endedAt: now,
        worker: this.workerId,
      };
      await this.finish(
        occurrence,
        job,
        held,
        ticket,
        logger,
        {
          outcome: 'retrying',
          error: message,
          attempts: attempt,
          previousAttempts: [...state.previous, failed],
          ...this.source.jobFields(job),
        },
        [],
      );
    }
    return final;
  }

  /**
   * Write the run's outcome and give its slot back, in one call (`RunSlots.finish`); a rejected write
   * (a newer run of the occurrence holds its record) is logged. A store error is logged, not thrown
   * (the leases still held are given back by `releaseAll`).
   */
  async finish(
    occurrence: Occurrence,
    job: Job,
    held: HeldLeases | undefined,
    ticket: RunTicket,
    logger: Logger,
    patch: RunPatch,
    counters: readonly RunCounter[],
    streak?: 'ok' | 'failed',
    error?: string,
    /** The patch's `finishedAt` is the run's end as given (an outcome written behind). */
    finishedAtGiven = false,
  ) {
    if (ticket.unwritten) {
      // still behind: its `running` facts go with the outcome, in one write
      patch = Object.assign({}, ticket.unwritten, patch); // not a spread of two: ~15x dearer in V8
      ticket.unwritten = undefined;
      this.behind.delete(ticket);
    }
    try {
      const failures = occurrence.run.pauseOnFailure ?? 0;
      const done = await occurrence.slots.finish(
        occurrence,
        ticket.leaseId,
        ticket.fencingToken,
        patch,
        counters,
        streak,
        {
          afterFailures: failures,
          // said only by a failure that may pause the schedule
          note: failures > 0 && streak === 'failed' ? pauseNote(failures, error ?? '') : '',
          at: this.options.clock.now(),
        },
        occurrence.run.slot, // the job's stored rule: which waiters and marks the run may have left
        finishedAtGiven,
      );
      if (ticket.leaseId !== undefined) held?.slotReturned();
      if (!done.written) {
        logger.warn(
          { fencingToken: ticket.fencingToken, outcome: patch.outcome },
          'outcome not written: a newer run of this occurrence holds its record (fencing token)',
        );
      }
      if (done.next !== undefined && this.promote) {
        this.promote(job.queueName, done.next).catch(() => {}); // it asks again on its own anyway
      }
      return done;
    } catch (err) {
      logger.error({ err, patch }, 'could not write the run record');
      return undefined;
    }
  }

  /** Merge into the occurrence's record; a record that cannot be written is logged, not thrown. */
  async record(
    occurrence: Occurrence,
    patch: RunPatch,
    counters: readonly RunCounter[] = [],
    logger: Logger = this.options.logger,
  ): Promise<void> {
    try {
      await occurrence.history.merge(
        occurrence.scheduleId,
        occurrence.fireAt,
        occurrence.manual,
        patch,
        counters,
      );
    } catch (err) {
      logger.error({ err, patch }, 'could not write the run record');
    }
  }

  private emit(event: 'failed' | 'skipped' | 'pausedOnFailure', payload: unknown): void {
    try {
      this.scheduler.emit?.(event, payload);
    } catch (err) {
      this.options.logger.error({ err, event }, 'an event listener threw');
    }
  }
}
