import { randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AmbiguousHandlerError } from '../errors/ambiguous-handler-error.js';
import { RunCancelledError } from '../errors/run-cancelled-error.js';
import { UnknownHandlerError } from '../errors/unknown-handler-error.js';
import type { RunPatch, RunRecord, RunStart, SlotRule } from '../store/index.js';
import { LeaseStore } from '../store/index.js';
import { type AttemptState, attemptState, attemptsAllowed, lostAttempts } from './attempt-state.js';
import { CancelWatch } from './cancel-watch.js';
import { takeGroup } from './exclusion-group.js';
import { HeldLeases } from './held-leases.js';
import { withDeadline } from './middleware/timeout-middleware.js';
import { type Occurrence, OccurrenceSource, startMarkOf } from './occurrence-source.js';
import { bareHandler, composePipeline } from './pipeline.js';
import { runContext } from './run-ctx.js';
import { RunRecorder, type RunTicket } from './run-recorder.js';
import { type CancelledResult, type SkippedResult, serializable } from './run-results.js';
import { LiveRuns, type RunStop } from './run-stop.js';
import type { ResolvedWorkerOptions } from './worker-options.js';
import type { HandlerEntry, WorkerScheduler } from './worker-scheduler.js';

/** One delivery being processed: what the steps of `process` share. */
interface Run {
  occurrence: Occurrence;
  job: Job;
  state: AttemptState;
  logger: Logger;
  held: HeldLeases;
  ticket: RunTicket;
  /** The run's stop: by the shutdown, by BullMQ's job signal, or by a lease lost or asked to stop. */
  stop: RunStop;
  /** When it started (a failed attempt's record keeps it); unset while it has not. */
  startedAt: number | undefined;
  /** Attempts allowed, lost ones not counted (see `takeSlot`). */
  maxAttempts: number;
  /**
   * The `running` record the start asked for (written behind: see `holdSlot`): the run's own facts,
   * and the job's (its queue, id and kind), which its `enqueued` record may hold already.
   */
  running?: { own: RunPatch; jobFields: Partial<RunRecord> };
  /** The local clock when the start answered (its `at` is Redis TIME): the run's end on Redis's clock. */
  startedLocal?: number;
}

/** What the runner may ask of the queues it serves (the worker handle's BullMQ workers). */
export interface RunnerQueues {
  /** Moves a delayed job of `queue` to wait at once (the next in line for a slot that just freed). */
  promote?: (queue: string, jobId: string) => Promise<void>;
  /** Whether jobs wait on any of these queues (outcomes are held behind a burst: `holdFinish`). */
  waiting?: (queues: readonly string[]) => Promise<boolean>;
  /** Whether `queue` is in a burst or a backlog for this worker (jobs wait, other runs under way). */
  inBurst?: (queue: string) => boolean;
}

/**
 * Runs one BullMQ job of an occurrence: overlap policy on the run slot, exclusion group, records, the
 * middleware pipeline under `timeoutMs`, and the abort on shutdown or cancellation. One per worker
 * handle, shared by its queues.
 *
 * The lean path: a run costs two store scripts, `start-runs` (slot, fencing token, `running` record)
 * and `finish-runs` (outcome, lease back, failure streak), each carrying every run of the worker that
 * starts (ends) at the same time (see `ScriptBatcher`); a first delivery reads nothing before. A
 * success in a burst gives its slot back at once and has its outcome written behind the burst
 * (`RunRecorder.holdFinish`).
 */
export class OccurrenceRunner {
  private readonly leases: LeaseStore;
  private readonly source: OccurrenceSource;
  private readonly recorder: RunRecorder;
  private readonly cancels: CancelWatch;
  /** Whether a queue is in a burst or a backlog for this worker (see `holdsOutcome`). */
  private readonly inBurst: (queue: string) => boolean;
  /** Runs taken from BullMQ whose start check has not answered yet. */
  private starting = 0;
  /** What makes this runner's lease ids its own (see `leaseId`). */
  private readonly leaseTag = randomBytes(4).toString('hex');
  private leaseSeq = 0;
  /** The runs under way, stopped when the shutdown's grace period has passed. */
  private readonly live: LiveRuns;

  constructor(
    private readonly scheduler: WorkerScheduler,
    redis: Redis,
    private readonly options: ResolvedWorkerOptions,
    /** Aborts (with a `WorkerShutdownError`) when the grace period of a shutdown has passed. */
    shutdown: AbortSignal,
    /** Where `pausedOnFailure` is emitted for this process (the handle's `events`: metrics). */
    events?: EventEmitter,
    queues: RunnerQueues = {},
  ) {
    this.leases = new LeaseStore(redis, options.leaseTtlMs);
    this.cancels = new CancelWatch(redis, options.logger);
    this.live = new LiveRuns(shutdown);
    this.source = new OccurrenceSource(scheduler, redis, options);
    const workerId = `${hostname()}:${process.pid}`;
    this.inBurst = queues.inBurst ?? (() => false);
    this.recorder = new RunRecorder(
      scheduler,
      options,
      this.source,
      workerId,
      events,
      queues.promote,
      // a burst is over for this worker once no job waits and none it took is still at its start check:
      // held outcomes written earlier would land among the burst's last starts
      queues.waiting && (async (q: readonly string[]) => this.starting > 0 || (await queues.waiting!(q))),
    );
  }

  /** Write the records still behind, and close the cancel channel's connection. */
  async close(): Promise<void> {
    await this.recorder.flushAll();
    await this.cancels.close();
  }

  /**
   * Stop the runs under way of job `jobId` in `queue` (all of the queue's when undefined): whether one
   * was. `Worker.cancelJob` and `cancelAllJobs` of the handle's workers (see `RuntimeWorker`).
   */
  cancel(queue: string, jobId: string | undefined, reason?: unknown): boolean {
    return this.live.cancel(queue, jobId, reason);
  }

  /** The BullMQ processor. Resolves with the handler's result, or a `SkippedResult`/`CancelledResult`. */
  async process(job: Job, token?: string): Promise<unknown> {
    // begun at once: a cancel from the moment BullMQ hands the job over stops the run (see `cancel`)
    const stop = this.live.begin(job);
    try {
      const occurrence = await this.source.of(job);
      const entry = this.scheduler.handlerFor(job.name, occurrence.scheduleId);
      if (!entry || entry.ambiguous) return await this.refuse(occurrence, job, entry);
      // A first delivery (never started before, nothing failed) has no earlier attempt to read; the
      // start script checks that the record agrees (a stalled run re-delivered as new sends it back).
      const first = job.attemptsMade === 0 && (job.attemptsStarted ?? 0) <= 1;
      const record = first ? null : await this.source.readRecord(occurrence);
      const state = attemptState(job, record, this.options.clock.now());
      const logger = this.recorder.loggerFor(occurrence, job, state);
      const rule = occurrence.run.slot;
      const held = new HeldLeases(
        this.leases,
        this.leaseId(job),
        this.options.leaseRenewMs,
        logger,
        occurrence.scheduleId,
        (reason) => stop.stop(reason),
      );
      const ticket: RunTicket = { leaseId: undefined, fencingToken: undefined };
      const run: Run = {
        occurrence,
        job,
        state,
        logger,
        held,
        ticket,
        stop,
        startedAt: undefined,
        maxAttempts: attemptsAllowed(job),
      };
      let unwatch: (() => void) | undefined;
      try {
        let start: Exclude<RunStart, { status: 'reread' }>;
        this.starting++;
        try {
          start = await this.takeSlot(run, rule, first);
        } finally {
          this.starting--;
        }
        if (start.status !== 'started') return await this.notStarted(run, start, token);
        unwatch = this.holdSlot(run, rule, start);
        if (occurrence.run.exclusionGroup || occurrence.run.group) {
          const skipped = await this.enterGroup(run);
          if (skipped) return skipped;
        }
        const result = await this.runHandler(run, entry, start.fencingToken);
        // the start wrote this attempt's `attempts` and removed an earlier attempt's `error`
        if (this.holdsOutcome(rule, run)) {
          // written behind the burst; its slot is given back below (releaseAll), before BullMQ takes
          // the next job
          const finishedAt = this.endOnRedisClock(run, start.at);
          const { occurrence: o, job: j, ticket: t, logger: l } = run;
          this.recorder.holdFinish(o, j, t, l, { outcome: 'succeeded', finishedAt }, ['runs'], 'ok');
        } else {
          const finishedAt = this.options.clock.now();
          await this.finish(run, { outcome: 'succeeded', finishedAt }, ['runs'], 'ok');
        }
        return serializable(result, run.logger);
      } catch (error) {
        return await this.endInError(run, error);
      } finally {
        unwatch?.();
        const releasing = held.releaseAll();
        if (releasing)
          await releasing.catch((err: unknown) => run.logger.warn({ err }, 'could not release leases'));
      }
    } finally {
      this.live.end(stop);
    }
  }

  /** No handler for the job here, or several that it does not choose between: recorded failed, thrown. */
  private async refuse(occurrence: Occurrence, job: Job, entry: HandlerEntry | undefined): Promise<never> {
    const state: AttemptState = { attempt: job.attemptsMade + 1, owed: false, previous: [] };
    const error = entry?.ambiguous
      ? new AmbiguousHandlerError(job.name, entry.ambiguous)
      : new UnknownHandlerError(job.name, job.queueName);
    const ticket = { leaseId: undefined, fencingToken: undefined };
    const logger = this.recorder.loggerFor(occurrence, job, state);
    await this.recorder.recordFailure(occurrence, job, state, ticket, undefined, error, logger);
    throw error;
  }

  /**
   * Ask for the run slot under the occurrence's overlap rule (`RunSlots.start`: slot, fencing token,
   * `running` record). A first delivery whose record shows an earlier attempt reads it and asks again.
   */
  private async takeSlot(
    run: Run,
    rule: SlotRule,
    first: boolean,
  ): Promise<Exclude<RunStart, { status: 'reread' }>> {
    const { occurrence, job, held } = run;
    for (;;) {
      // An attempt lost with its worker does not use up one of `attempts` (as with BullMQ's stalled
      // check, which re-delivers it; BullMQ's maxStalledCount bounds how often that happens).
      run.maxAttempts = attemptsAllowed(job) + lostAttempts(run.state.previous);
      const startedAt = this.options.clock.now();
      run.startedAt = startedAt;
      const jobFields = this.source.jobFields(job);
      const own: RunPatch = {
        outcome: 'running',
        startedAt,
        attempts: run.state.attempt,
        worker: this.recorder.workerId,
      };
      // A first delivery's record (none, or `enqueued`) has none of these fields to remove. (Plain
      // assignments, not a conditional spread: a spread of `false` costs a runtime call, once per run.)
      if (!first) {
        own.previousAttempts = run.state.previous.length > 0 ? run.state.previous : null;
        own.error = null;
        own.finishedAt = null;
      }
      run.running = { own, jobFields };
      // Object.assign: a spread of two objects costs ~15x more in V8, once per run
      const running: RunPatch = Object.assign({}, own, jobFields);
      const start = await occurrence.slots.start(
        occurrence,
        rule,
        {
          leaseId: held.leaseId,
          jobId: job.id ?? '',
          owed: run.state.owed,
          firstDelivery: first,
          mark: startMarkOf(occurrence, job),
          runningBehind: this.options.recordLagMs > 0,
        },
        running,
        { outcome: 'skipped', finishedAt: startedAt, ...jobFields },
      );
      if (start.status !== 'reread') {
        if (run.state.lost) {
          const details = { lost: run.state.lost, maxAttempts: run.maxAttempts };
          run.logger.warn(details, 'the previous attempt was lost with its worker');
        }
        return start;
      }
      first = false;
      run.state = attemptState(job, await this.source.readRecord(occurrence), this.options.clock.now());
      run.logger = this.recorder.loggerFor(occurrence, job, run.state);
    }
  }

  /** The slot was not taken: the job waits for it, ran already, or is skipped. */
  private async notStarted(
    run: Run,
    start: Exclude<RunStart, { status: 'started' | 'reread' }>,
    token: string | undefined,
  ): Promise<unknown> {
    const { occurrence, job, state, logger } = run;
    run.startedAt = undefined;
    if (start.status === 'wait') {
      const details = { live: start.live, overlap: occurrence.run.overlap };
      logger.info(
        details,
        state.owed ? 'run slot busy: the retry waits for it' : 'run slot busy: waiting for it',
      );
      return await this.waitForSlot(occurrence, job, token, state, logger);
    }
    if (start.status === 'ran' || start.status === 'refused') {
      // ran: its job enqueued again after it left BullMQ; refused: by an enqueuer that had lost it
      logger.info(`not run again: this occurrence ran already (${start.status}: enqueued again)`);
      return { ranAlready: true };
    }
    const skipped: SkippedResult = { skipped: start.reason };
    logger.info({ live: start.live, ...this.overlapDetails(occurrence) }, `skipped: ${start.reason}`);
    this.recorder.emitSkip(occurrence, job, skipped);
    return skipped;
  }

  /** The slot is taken: keep its lease while the run goes on, and listen for a newer run's cancel. */
  private holdSlot(
    run: Run,
    rule: SlotRule,
    start: Extract<RunStart, { status: 'started' }>,
  ): (() => void) | undefined {
    const { occurrence, held, ticket } = run;
    // the record's start instant is Redis TIME, read by the start script (see start-runs-1.lua)
    run.startedAt = start.at;
    run.startedLocal = this.options.clock.now();
    ticket.fencingToken = start.fencingToken;
    if (this.options.recordLagMs > 0 && run.running) {
      // the job's facts are not sent again where its `enqueued` record holds them
      const { own, jobFields } = run.running;
      // built by assignment: a copy by spread with facts added after it costs ~1.5 µs in V8
      const unwritten: RunPatch = Object.assign({}, own, start.factsKnown ? undefined : jobFields);
      unwritten.startedAt = start.at;
      unwritten.fencingToken = start.fencingToken;
      if (start.buffered) unwritten.buffered = true;
      ticket.unwritten = unwritten;
      this.recorder.writeBehind(occurrence, ticket, run.logger);
    }
    if (rule.mode === 'none') return undefined;
    ticket.leaseId = held.leaseId;
    const set = occurrence.keys.lease(occurrence.scheduleId);
    held.holdSlot(set, () => occurrence.slots.renew(occurrence.scheduleId, held.leaseId));
    if (rule.mode !== 'cancelOther') return undefined;
    return this.cancels.watch(occurrence.keys.cancel, held.leaseId, () => held.cancel());
  }

  /**
   * Whether a success's outcome is written behind the burst (`RunRecorder.holdFinish`): when the
   * worker's `outcomeHoldMs` allows it (off by default), on the lean path (`recordLagMs` > 0), while
   * the queue is in a burst or a backlog for this worker (at idle an outcome is written before BullMQ
   * completes the job, as ever), under a policy whose slot
   * nobody waits for in line (`skip`, or none): the buffering policies and `cancelOther` hand their
   * slot over in the finish; not for a schedule with `pauseOnFailure`, whose streak a success resets.
   */
  private holdsOutcome(rule: SlotRule, run: Run): boolean {
    return (
      this.options.outcomeHoldMs > 0 &&
      this.options.recordLagMs > 0 &&
      (rule.mode === 'skip' || rule.mode === 'none') &&
      // a success resets a `pauseOnFailure` streak: written in order with the failures after it
      !(run.occurrence.run.pauseOnFailure ?? 0) &&
      this.inBurst(run.job.queueName)
    );
  }

  /** The run's end on Redis's clock: its start's Redis TIME plus the time it took here. */
  private endOnRedisClock(run: Run, startAt: number): number {
    const took = this.options.clock.now() - (run.startedLocal ?? this.options.clock.now());
    return Math.max(run.startedAt ?? startAt, startAt + Math.max(0, took));
  }

  /**
   * Take the exclusion group or group place (the caller asks only when the run has one): the skip
   * when it stayed busy, else undefined (it may run).
   */
  private async enterGroup(run: Run): Promise<SkippedResult | undefined> {
    const { occurrence, job, held, stop, logger } = run;
    const group = await takeGroup(this.leases, this.options, occurrence, held, stop.signal, logger);
    if (group && 'skipped' in group) {
      run.startedAt = undefined;
      const finishedAt = this.options.clock.now();
      const reason = group.skipped;
      await this.finish(
        run,
        { outcome: 'skipped', reason, group: group.group ?? null, startedAt: null, finishedAt },
        ['skipped'],
      );
      this.recorder.emitSkip(occurrence, job, group);
      return group;
    }
    if (group && 'takenAt' in group) {
      // It starts once its group is taken (the wait is not part of the run), by Redis TIME.
      run.startedAt = group.takenAt;
      if (run.ticket.unwritten) run.ticket.unwritten.startedAt = group.takenAt;
      else await this.recorder.record(occurrence, { startedAt: group.takenAt }, [], logger);
    }
    return undefined;
  }

  /** Run the handler in its middleware pipeline, under `timeoutMs`, until it ends or the run is stopped. */
  private async runHandler(run: Run, entry: HandlerEntry, fencingToken: number): Promise<unknown> {
    const { occurrence, job, state, stop, logger } = run;
    const { scheduleId, fireAt, kind } = occurrence;
    const ctx = runContext(
      { scheduleId, name: job.name, fireAt, attempt: state.attempt, kind },
      stop,
      logger,
      fencingToken,
      job,
    );
    const fn = entry.fn as (...args: unknown[]) => unknown;
    const middleware = entry.middleware ?? [];
    const pipeline =
      middleware.length === 0
        ? bareHandler(fn, [...occurrence.args], entry.job)
        : await composePipeline(fn, [...occurrence.args], middleware, entry.job);
    const timeoutMs = occurrence.run.timeoutMs;
    const running =
      timeoutMs && timeoutMs > 0
        ? withDeadline(pipeline, ctx, timeoutMs, this.options.clock, occurrence.scheduleId)
        : pipeline(ctx);
    return stop.race(running);
  }

  /** The run threw: a wait for the slot goes on, a cancel is recorded, a failure recorded and thrown. */
  private async endInError(run: Run, error: unknown): Promise<CancelledResult> {
    const { occurrence, job, state, ticket, held, logger } = run;
    if (error instanceof DelayedError) throw error;
    if (error instanceof RunCancelledError) {
      logger.info('cancelled by a newer occurrence (overlap: cancelOther)');
      const finishedAt = this.options.clock.now();
      await this.finish(
        run,
        { outcome: 'cancelled', finishedAt, attempts: state.attempt, error: error.message },
        ['runs'],
      );
      return { cancelled: true };
    }
    const final = await this.recorder.recordFailure(
      occurrence,
      job,
      state,
      ticket,
      run.startedAt,
      error,
      logger,
      held,
    );
    // Lost attempts count, BullMQ's count does not know them: stop its retries when ours are spent.
    if (final && !(error instanceof UnrecoverableError) && job.attemptsMade + 1 < run.maxAttempts) {
      throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
    }
    throw error;
  }

  private finish(
    run: Run,
    patch: Parameters<RunRecorder['finish']>[5],
    counters: Parameters<RunRecorder['finish']>[6],
    streak?: 'ok' | 'failed',
  ) {
    return this.recorder.finish(
      run.occurrence,
      run.job,
      run.held,
      run.ticket,
      run.logger,
      patch,
      counters,
      streak,
    );
  }

  /** See `RunRecorder.recordFailedBeforeProcessing`. */
  recordFailedBeforeProcessing(job: Job, error: Error): Promise<void> {
    return this.recorder.recordFailedBeforeProcessing(job, error);
  }

  private overlapDetails(occurrence: Occurrence) {
    const { run } = occurrence;
    return { maxInstances: run.maxInstances, overlap: run.overlap };
  }

  /**
   * The run slot is busy and this job may wait for it: a retry owed its run (it stays claimed for it,
   * see start-runs), or an occurrence buffered by its overlap policy. The job goes back to BullMQ's
   * delayed set to ask again in `slotWaitPollMs` (sooner when the run before it finishes and promotes
   * it). Records the lost attempt, if that is what brought it here. Always throws BullMQ's `DelayedError`.
   */
  private async waitForSlot(
    occurrence: Occurrence,
    job: Job,
    token: string | undefined,
    state: AttemptState,
    logger: Logger,
  ): Promise<never> {
    if (state.lost) {
      await this.recorder.record(
        occurrence,
        {
          outcome: 'retrying',
          error: state.lost.error,
          attempts: state.lost.attempt,
          previousAttempts: state.previous,
          ...this.source.jobFields(job),
        },
        [],
        logger,
      );
    }
    if (token === undefined) throw new Error('cannot delay a job without its lock token');
    await job.moveToDelayed(Date.now() + this.options.slotWaitPollMs, token);
    throw new DelayedError();
  }

  /**
   * A lease id no other run holds: this worker, the job, and a number this runner gives once, after
   * a random part of its own (a worker restarted with the same host and pid, whose earlier leases may
   * still stand, makes other ids). A random id per run would cost ~0.7 µs.
   */
  private leaseId(job: Job): string {
    return `${this.recorder.workerId}:${job.id}:${this.leaseTag}${(this.leaseSeq++).toString(36)}`;
  }
}
