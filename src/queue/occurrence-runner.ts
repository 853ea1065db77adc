import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AmbiguousHandlerError } from '../errors/ambiguous-handler-error.js';
import { RunCancelledError } from '../errors/run-cancelled-error.js';
import { UnknownHandlerError } from '../errors/unknown-handler-error.js';
import { type OccurrenceRunOptions, resolveRunOptions } from '../store/job-payload.js';
import { type Keys, keys, laneOf, type RecordLane } from '../store/keys.js';
import { LeaseStore } from '../store/lease-store.js';
import { type SlotRule, slotRule } from '../store/overlap-policy.js';
import { type RunCounter, RunHistory, type RunPatch } from '../store/run-history.js';
import type { RunRecord } from '../store/run-record.js';
import { RunSlots, type RunStart } from '../store/run-slots.js';
import { traceSteps } from '../tracing/run-tracing.js';
import { type AttemptState, attemptState } from './attempt-state.js';
import { CancelWatch } from './cancel-watch.js';
import { HeldLeases } from './held-leases.js';
import { withDeadline } from './middleware/timeout-middleware.js';
import { composePipeline, type RunContext } from './pipeline.js';
import { OccurrenceFacts } from './plain-occurrence.js';
import {
  type CancelledResult,
  type PausedOnFailureEvent,
  pauseNote,
  type SkippedResult,
} from './run-results.js';
import { LiveRuns } from './run-stop.js';
import { attemptsAllowed, lostAttempts, serializable } from './runner-helpers.js';
import { sleep } from './worker-clock.js';
import type { ResolvedWorkerOptions } from './worker-options.js';
import type { WorkerScheduler } from './worker-scheduler.js';

/** One occurrence as the runner sees it: the job data with every gap filled. */
interface Occurrence {
  scheduleId: string;
  fireAt: number;
  kind: RunRecord['kind'];
  manual: RecordLane;
  args: readonly unknown[];
  keys: Keys;
  history: RunHistory;
  slots: RunSlots;
  run: OccurrenceRunOptions;
}

/** A deployment's keys and the stores on them, by prefix. */
interface DeploymentStores {
  keys: Keys;
  history: RunHistory;
  slots: RunSlots;
}

/** The run under way: its lease (when its overlap rule takes one), slot rule and fencing token. */
interface RunTicket {
  leaseId: string | undefined;
  fencingToken: number | undefined;
  mode?: SlotRule['mode'];
}

/**
 * Runs one BullMQ job of an occurrence: overlap policy on the run slot, exclusion group, records, the
 * middleware pipeline under `timeoutMs`, and the abort on shutdown or cancellation. One per worker
 * handle, shared by its queues.
 *
 * The lean path: a run costs two store scripts, `start-runs` (slot, fencing token, `running` record)
 * and `finish-runs` (outcome, lease back, failure streak), each carrying every run of the worker that
 * starts (ends) at the same time (see `ScriptBatcher`); a first delivery reads nothing before.
 */
export class OccurrenceRunner {
  private readonly leases: LeaseStore;
  private readonly histories = new Map<string, DeploymentStores>();
  private readonly facts: OccurrenceFacts;
  private readonly cancels: CancelWatch;
  private readonly workerId = `${hostname()}:${process.pid}`;
  /** The runs under way, stopped when the shutdown's grace period has passed. */
  private readonly live: LiveRuns;

  constructor(
    private readonly scheduler: WorkerScheduler,
    private readonly redis: Redis,
    private readonly options: ResolvedWorkerOptions,
    /** Aborts (with a `WorkerShutdownError`) when the grace period of a shutdown has passed. */
    shutdown: AbortSignal,
    /** Where `pausedOnFailure` is emitted for this process (the handle's `events`: metrics). */
    private readonly events?: EventEmitter,
    /** Moves a delayed job of `queue` to wait at once (the next in line for a slot that just freed). */
    private readonly promote?: (queue: string, jobId: string) => Promise<void>,
  ) {
    this.leases = new LeaseStore(redis, options.leaseTtlMs);
    this.cancels = new CancelWatch(redis, options.logger);
    this.live = new LiveRuns(shutdown);
    this.facts = new OccurrenceFacts(scheduler);
  }

  /** Close the cancel channel's connection. */
  close(): Promise<void> {
    return this.cancels.close();
  }

  /** The BullMQ processor. Resolves with the handler's result, or a `SkippedResult`/`CancelledResult`. */
  async process(job: Job, token?: string, jobSignal?: AbortSignal): Promise<unknown> {
    const occurrence = await this.occurrence(job);
    const entry = this.scheduler.handlerFor(job.name, occurrence.scheduleId);
    if (!entry || entry.ambiguous) {
      const state: AttemptState = { attempt: job.attemptsMade + 1, owed: false, previous: [] };
      const error = entry?.ambiguous
        ? new AmbiguousHandlerError(job.name, entry.ambiguous)
        : new UnknownHandlerError(job.name, job.queueName);
      const ticket = { leaseId: undefined, fencingToken: undefined };
      await this.recordFailure(
        occurrence,
        job,
        state,
        ticket,
        undefined,
        error,
        this.logger(occurrence, job, state),
      );
      throw error;
    }
    // A first delivery (never started before, nothing failed) has no earlier attempt to read; the
    // start script checks that the record agrees (a stalled run re-delivered as new sends it back).
    let first = job.attemptsMade === 0 && (job.attemptsStarted ?? 0) <= 1;
    let state = attemptState(job, first ? null : await this.readRecord(occurrence), this.options.clock.now());
    let logger = this.logger(occurrence, job, state);

    const rule = slotRule(occurrence.run);
    // The run's stop: by the shutdown, by BullMQ's job signal, or by a lease lost or asked to stop.
    const { stop, end: unlink } = this.live.begin(jobSignal);
    const signal = stop.signal;
    const held = new HeldLeases(
      this.leases,
      this.leaseId(job),
      this.options.leaseRenewMs,
      logger,
      occurrence.scheduleId,
      (reason) => stop.stop(reason),
    );
    const ticket: RunTicket = { leaseId: undefined, fencingToken: undefined };
    let unwatch: (() => void) | undefined;
    let startedAt: number | undefined;
    let maxAttempts = attemptsAllowed(job);
    try {
      let start: RunStart;
      for (;;) {
        // An attempt lost with its worker does not use up one of `attempts` (as with BullMQ's stalled
        // check, which re-delivers it; BullMQ's maxStalledCount bounds how often that happens).
        maxAttempts = attemptsAllowed(job) + lostAttempts(state.previous);
        startedAt = this.options.clock.now();
        const jobFields = this.jobFields(job);
        start = await occurrence.slots.start(
          occurrence,
          rule,
          {
            leaseId: held.leaseId,
            jobId: job.id ?? '',
            owedId: state.owed ? job.id : undefined,
            firstDelivery: first,
          },
          {
            outcome: 'running',
            startedAt,
            attempts: state.attempt,
            worker: this.workerId,
            // A first delivery's record (none, or `enqueued`) has none of these fields to remove.
            ...(!first && {
              previousAttempts: state.previous.length > 0 ? state.previous : null,
              error: null,
              finishedAt: null,
            }),
            ...jobFields,
          },
          { outcome: 'skipped', finishedAt: startedAt, ...jobFields },
        );
        if (start.status !== 'reread') break;
        first = false;
        state = attemptState(job, await this.readRecord(occurrence), this.options.clock.now());
        logger = this.logger(occurrence, job, state);
      }
      if (state.lost)
        logger.warn({ lost: state.lost, maxAttempts }, 'the previous attempt was lost with its worker');
      if (start.status === 'wait') {
        const details = { live: start.live, overlap: occurrence.run.overlap ?? rule.mode };
        logger.info(
          details,
          state.owed ? 'run slot busy: the retry waits for it' : 'run slot busy: waiting for it',
        );
        startedAt = undefined;
        return await this.waitForSlot(occurrence, job, token, state, logger);
      }
      if (start.status === 'ran') {
        logger.info(
          'not run again: this occurrence ran already (its job was enqueued again after it left BullMQ)',
        );
        return { ranAlready: true };
      }
      if (start.status === 'skipped') {
        startedAt = undefined;
        const skipped: SkippedResult = { skipped: start.reason };
        logger.info({ live: start.live, ...this.overlapDetails(occurrence) }, `skipped: ${start.reason}`);
        this.emitSkip(occurrence, job, skipped);
        return skipped;
      }
      // the record's start instant is Redis TIME, read by the start script (see start-runs-1.lua)
      startedAt = start.at;
      ticket.fencingToken = start.fencingToken;
      ticket.mode = rule.mode;
      if (rule.mode !== 'none') {
        ticket.leaseId = held.leaseId;
        const set = occurrence.keys.lease(occurrence.scheduleId);
        held.holdSlot(set, () => occurrence.slots.renew(occurrence.scheduleId, held.leaseId));
        if (rule.mode === 'cancelOther') {
          unwatch = this.cancels.watch(occurrence.keys.cancel, held.leaseId, () => held.cancel());
        }
      }
      const group = await this.takeGroup(occurrence, held, signal, logger);
      const skipped = group && 'skipped' in group ? group : undefined;
      if (skipped) {
        startedAt = undefined;
        await this.finish(
          occurrence,
          job,
          held,
          ticket,
          logger,
          {
            outcome: 'skipped',
            reason: skipped.skipped,
            group: skipped.group ?? null,
            startedAt: null,
            finishedAt: this.options.clock.now(),
          },
          ['skipped'],
        );
        this.emitSkip(occurrence, job, skipped);
        return skipped;
      }
      if (group && 'takenAt' in group) {
        // It starts once its group is taken (the wait is not part of the run), by Redis TIME.
        startedAt = group.takenAt;
        await this.record(occurrence, { startedAt }, [], logger);
      }
      const ctx: RunContext = {
        scheduleId: occurrence.scheduleId,
        name: job.name,
        fireAt: occurrence.fireAt,
        attempt: state.attempt,
        kind: occurrence.kind,
        signal,
        logger,
        fencingToken: start.fencingToken,
        job,
      };
      const pipeline = await composePipeline(
        entry.fn as (...args: unknown[]) => unknown,
        [...occurrence.args],
        entry.middleware ?? [],
        entry.job,
      );
      const timeoutMs = occurrence.run.timeoutMs;
      const running =
        timeoutMs && timeoutMs > 0
          ? withDeadline(pipeline, ctx, timeoutMs, this.options.clock, occurrence.scheduleId)
          : pipeline(ctx);
      const result = await stop.race(running);
      await this.finish(
        occurrence,
        job,
        held,
        ticket,
        logger,
        { outcome: 'succeeded', finishedAt: this.options.clock.now(), attempts: state.attempt, error: null },
        ['runs'],
        'ok',
      );
      return serializable(result, logger);
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      if (error instanceof RunCancelledError) {
        logger.info('cancelled by a newer occurrence (overlap: cancelOther)');
        await this.finish(
          occurrence,
          job,
          held,
          ticket,
          logger,
          {
            outcome: 'cancelled',
            finishedAt: this.options.clock.now(),
            attempts: state.attempt,
            error: error.message,
          },
          ['runs'],
        );
        return { cancelled: true } satisfies CancelledResult;
      }
      const final = await this.recordFailure(occurrence, job, state, ticket, startedAt, error, logger, held);
      // Lost attempts count, BullMQ's count does not know them: stop its retries when ours are spent.
      if (final && !(error instanceof UnrecoverableError) && job.attemptsMade + 1 < maxAttempts) {
        throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
      }
      throw error;
    } finally {
      unlink();
      unwatch?.();
      await held.releaseAll().catch((err: unknown) => logger.warn({ err }, 'could not release leases'));
    }
  }

  /**
   * Record a job that BullMQ failed before the processor saw it (`failedBeforeProcessing`: its workers
   * died mid-run more often than `maxStalledCount`). Its record still says `running` for the attempt
   * lost with its worker: the run is recorded `failed`, that attempt listed as lost, and counted as a
   * final failure (`pauseOnFailure`), fenced by the lost attempt's token (a newer run's record is
   * left alone). A record of another job, or one not in flight, is left alone.
   */
  async recordFailedBeforeProcessing(job: Job, error: Error): Promise<void> {
    const occurrence = await this.occurrence(job);
    const record = await this.readRecord(occurrence);
    if (!record || record.jobId !== job.id) return;
    if (record.outcome !== 'running' && record.outcome !== 'retrying') return;
    const state = attemptState(job, record, this.options.clock.now());
    // the attempt that ended is the lost one (or the one that failed, while `retrying`)
    const ended = { ...state, attempt: record.attempts ?? Math.max(1, state.attempt - 1) };
    const why = state.lost
      ? `${state.lost.error}, and BullMQ failed its job: ${error.message}`
      : error.message;
    const ticket: RunTicket = {
      leaseId: undefined,
      fencingToken: record.fencingToken,
      mode: slotRule(occurrence.run).mode,
    };
    const logger = this.logger(occurrence, job, ended);
    await this.recordFailure(occurrence, job, ended, ticket, undefined, new UnrecoverableError(why), logger);
  }

  /**
   * Take the run's exclusion group, if it has one (waiting in line up to the bound). Returns why the
   * occurrence must be skipped, the Redis TIME the group was taken at, or undefined (no group).
   */
  private async takeGroup(
    occurrence: Occurrence,
    held: HeldLeases,
    signal: AbortSignal,
    logger: Logger,
  ): Promise<SkippedResult | { takenAt: number } | undefined> {
    const { keys: k, run } = occurrence;
    const group = run.exclusionGroup;
    if (!group) return undefined;

    const waitMs = run.exclusionWaitMs ?? this.options.exclusionWaitMs;
    const deadline = this.options.clock.now() + waitMs;
    for (;;) {
      const takenAt = await this.leases.tryGroupAt(k, group, held.leaseId);
      if (takenAt !== undefined) {
        held.add(k.group(group));
        return { takenAt };
      }
      const left = deadline - this.options.clock.now();
      if (left <= 0 || signal.aborted) break;
      try {
        await sleep(this.options.clock, Math.min(this.options.groupPollMs, left), signal);
      } catch {
        break;
      }
    }
    await this.leases.leaveGroupQueue(k, group, held.leaseId);
    if (signal.aborted) throw signal.reason;
    logger.info({ group, waitMs }, 'skipped: exclusion group stayed busy');
    return { skipped: 'exclusion-group', group };
  }

  private overlapDetails(occurrence: Occurrence) {
    const { run } = occurrence;
    return {
      maxInstances: run.maxInstances,
      coalesce: run.coalesce,
      ...(run.overlap !== undefined && { overlap: run.overlap }),
    };
  }

  private async occurrence(job: Job): Promise<Occurrence> {
    const data = await this.facts.of(job);
    const entry = this.scheduler.handlerFor(job.name, data.scheduleId);
    const prefix = data.prefix ?? this.scheduler.prefix;
    const kind = data.kind ?? 'scheduled';
    const { history, slots, keys } = this.stores(prefix);
    return {
      scheduleId: data.scheduleId ?? entry?.job.id ?? job.name,
      fireAt: data.fireAt ?? job.timestamp,
      kind,
      manual: laneOf(kind),
      args: data.args ?? entry?.args ?? [],
      keys,
      history,
      slots,
      run: resolveRunOptions(data.run),
    };
  }

  /** The occurrence's record as it stands, or null (also when it cannot be read: logged). */
  private async readRecord(occurrence: Occurrence): Promise<RunRecord | null> {
    try {
      return await occurrence.history.get(occurrence.scheduleId, occurrence.fireAt, occurrence.manual);
    } catch (err) {
      this.options.logger.warn({ err, scheduleId: occurrence.scheduleId }, 'could not read the run record');
      return null;
    }
  }

  private logger(occurrence: Occurrence, job: Job, state: AttemptState): Logger {
    return this.options.logger.child({
      scheduleId: occurrence.scheduleId,
      fireAt: occurrence.fireAt,
      jobId: job.id,
      attempt: state.attempt,
    });
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
      await this.record(
        occurrence,
        {
          outcome: 'retrying',
          error: state.lost.error,
          attempts: state.lost.attempt,
          previousAttempts: state.previous,
          ...this.jobFields(job),
        },
        [],
        logger,
      );
    }
    if (token === undefined) throw new Error('cannot delay a job without its lock token');
    await job.moveToDelayed(Date.now() + this.options.slotWaitPollMs, token);
    throw new DelayedError();
  }

  /** The keys of a deployment: the scheduler's partitions for its own prefix (see `WorkerScheduler.partitions`). */
  private keysOf(prefix: string): Keys {
    return keys(prefix, prefix === this.scheduler.prefix ? (this.scheduler.partitions ?? 1) : 1);
  }

  /** The stores of a deployment's prefix (made once: its keys, its history, its run slots). */
  private stores(prefix: string): DeploymentStores {
    let stores = this.histories.get(prefix);
    if (!stores) {
      const k = this.keysOf(prefix);
      const { leaseTtlMs, historyLimit, auditLimit } = this.options;
      stores = {
        keys: k,
        history: new RunHistory(this.redis, k, historyLimit),
        slots: traceSteps(new RunSlots(this.redis, k, leaseTtlMs, historyLimit, auditLimit), {
          start: 'bullbeat.start',
          finish: 'bullbeat.record',
        }),
      };
      this.histories.set(prefix, stores);
    }
    return stores;
  }

  private leaseId(job: Job): string {
    return `${this.workerId}:${job.id}:${randomUUID().slice(0, 8)}`;
  }

  private jobFields(job: Job): Partial<RunRecord> {
    return { queue: job.queueName, ...(job.id ? { jobId: job.id } : {}), kind: this.kindOf(job) };
  }

  private kindOf(job: Job): RunRecord['kind'] {
    return this.facts.kindOf(job);
  }

  private emitSkip(occurrence: Occurrence, job: Job, skipped: SkippedResult) {
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
  private async recordFailure(
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
          ...this.jobFields(job),
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
          ...this.jobFields(job),
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
  private async finish(
    occurrence: Occurrence,
    job: Job,
    held: HeldLeases | undefined,
    ticket: RunTicket,
    logger: Logger,
    patch: RunPatch,
    counters: readonly RunCounter[],
    streak?: 'ok' | 'failed',
    error?: string,
  ) {
    try {
      const failures = occurrence.run.pauseOnFailure ?? 0;
      const done = await occurrence.slots.finish(
        occurrence,
        ticket.leaseId,
        ticket.fencingToken,
        patch,
        counters,
        streak,
        { afterFailures: failures, note: pauseNote(failures, error ?? ''), at: this.options.clock.now() },
        ticket.mode,
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
  private async record(
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
