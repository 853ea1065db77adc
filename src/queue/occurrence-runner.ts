import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { UnknownHandlerError } from '../errors/unknown-handler-error.js';
import {
  type OccurrenceJobData,
  type OccurrenceRunOptions,
  resolveRunOptions,
} from '../store/job-payload.js';
import { type Keys, keys } from '../store/keys.js';
import { LeaseStore } from '../store/lease-store.js';
import { type RunCounter, RunHistory, type RunPatch } from '../store/run-history.js';
import type { RunRecord, SkipReason } from '../store/run-record.js';
import { type AttemptState, attemptState } from './attempt-state.js';
import { HeldLeases } from './held-leases.js';
import { withDeadline } from './middleware/timeout-middleware.js';
import { composePipeline, type RunContext } from './pipeline.js';
import { attemptsAllowed, lostAttempts, serializable, untilAborted } from './runner-helpers.js';
import { sleep } from './worker-clock.js';
import type { ResolvedWorkerOptions } from './worker-options.js';
import type { WorkerScheduler } from './worker-scheduler.js';

/** What a job that was not run returns to BullMQ (its `returnvalue`). */
export interface SkippedResult {
  skipped: SkipReason;
  group?: string;
}

/** One occurrence as the runner sees it: the job data with every gap filled. */
interface Occurrence {
  scheduleId: string;
  fireAt: number;
  kind: RunRecord['kind'];
  manual: boolean;
  args: readonly unknown[];
  keys: Keys;
  history: RunHistory;
  run: OccurrenceRunOptions;
}

/**
 * Runs one BullMQ job of an occurrence: overlap slot, exclusion group, records, the middleware
 * pipeline under `timeoutMs`, and the abort on shutdown. One per worker handle, shared by its queues.
 */
export class OccurrenceRunner {
  private readonly leases: LeaseStore;
  private readonly histories = new Map<string, RunHistory>();
  private readonly workerId = `${hostname()}:${process.pid}`;

  constructor(
    private readonly scheduler: WorkerScheduler,
    private readonly redis: Redis,
    private readonly options: ResolvedWorkerOptions,
    /** Aborts (with a `WorkerShutdownError`) when the grace period of a shutdown has passed. */
    private readonly shutdown: AbortSignal,
  ) {
    this.leases = new LeaseStore(redis, options.leaseTtlMs);
  }

  /** The BullMQ processor. Resolves with the handler's result, or a `SkippedResult`. */
  async process(job: Job, token?: string, jobSignal?: AbortSignal): Promise<unknown> {
    const occurrence = this.occurrence(job);
    const entry = this.scheduler.handlerFor(job.name);
    if (!entry) {
      const state: AttemptState = { attempt: job.attemptsMade + 1, owed: false, previous: [] };
      const error = new UnknownHandlerError(job.name, job.queueName);
      await this.recordFailure(occurrence, job, state, undefined, error, this.logger(occurrence, job, state));
      throw error;
    }
    const state = attemptState(job, await this.readRecord(occurrence), this.options.clock.now());
    const logger = this.logger(occurrence, job, state);
    // An attempt lost with its worker does not use up one of `attempts` (as with BullMQ's stalled
    // check, which re-delivers it; BullMQ's maxStalledCount bounds how often that happens).
    const maxAttempts = attemptsAllowed(job) + lostAttempts(state.previous);
    if (state.lost)
      logger.warn({ lost: state.lost, maxAttempts }, 'the previous attempt was lost with its worker');

    const held = new HeldLeases(
      this.leases,
      this.leaseId(job),
      this.options.leaseRenewMs,
      logger,
      occurrence.scheduleId,
    );
    const signal = AbortSignal.any([this.shutdown, held.lost, ...(jobSignal ? [jobSignal] : [])]);
    let startedAt: number | undefined;
    try {
      const taken = await this.takeLeases(occurrence, held, signal, logger, state.owed ? job.id : undefined);
      if (taken === 'wait') return await this.waitForSlot(occurrence, job, token, state, logger);
      if (taken) {
        await this.recordSkip(occurrence, job, taken, logger);
        return taken;
      }
      startedAt = this.options.clock.now();
      await this.record(occurrence, {
        outcome: 'running',
        startedAt,
        attempts: state.attempt,
        worker: this.workerId,
        previousAttempts: state.previous.length > 0 ? state.previous : null,
        error: null,
        finishedAt: null,
        ...this.jobFields(job),
      });
      const ctx: RunContext = {
        scheduleId: occurrence.scheduleId,
        name: job.name,
        fireAt: occurrence.fireAt,
        attempt: state.attempt,
        kind: occurrence.kind,
        signal,
        logger,
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
      const result = await untilAborted(running, signal);
      await this.record(
        occurrence,
        { outcome: 'succeeded', finishedAt: this.options.clock.now(), attempts: state.attempt, error: null },
        ['runs'],
      );
      return serializable(result, logger);
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      const final = await this.recordFailure(occurrence, job, state, startedAt, error, logger);
      // Lost attempts count, BullMQ's count does not know them: stop its retries when ours are spent.
      if (final && !(error instanceof UnrecoverableError) && job.attemptsMade + 1 < maxAttempts) {
        throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
      }
      throw error;
    } finally {
      await held.releaseAll().catch((err: unknown) => logger.warn({ err }, 'could not release leases'));
    }
  }

  /**
   * Take the schedule's run slot, then its exclusion group (waiting in line up to the bound).
   * Returns why the occurrence must be skipped, `'wait'` when a retry owed its run (`owedId`: its
   * job id) must wait for the slot, or undefined when it may run.
   */
  private async takeLeases(
    occurrence: Occurrence,
    held: HeldLeases,
    signal: AbortSignal,
    logger: Logger,
    owedId?: string,
  ): Promise<SkippedResult | 'wait' | undefined> {
    const { keys: k, run, scheduleId } = occurrence;
    const slot = await this.leases.acquireSlot(
      k,
      scheduleId,
      held.leaseId,
      run.maxInstances,
      run.coalesce,
      owedId,
    );
    if (!slot.granted) {
      const details = { live: slot.live, maxInstances: run.maxInstances, coalesce: run.coalesce };
      if (owedId !== undefined) {
        logger.info(details, 'run slot busy: the retry waits for it');
        return 'wait';
      }
      logger.info(details, 'skipped: overlap');
      return { skipped: 'overlap' };
    }
    held.add(k.lease(scheduleId));
    const group = run.exclusionGroup;
    if (!group) return undefined;

    const waitMs = run.exclusionWaitMs ?? this.options.exclusionWaitMs;
    const deadline = this.options.clock.now() + waitMs;
    for (;;) {
      if (await this.leases.tryGroup(k, group, held.leaseId)) {
        held.add(k.group(group));
        return undefined;
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

  private occurrence(job: Job): Occurrence {
    const data = (job.data ?? {}) as Partial<OccurrenceJobData>;
    const entry = this.scheduler.handlerFor(job.name);
    const prefix = data.prefix ?? this.scheduler.prefix;
    const kind = data.kind ?? 'scheduled';
    return {
      scheduleId: data.scheduleId ?? entry?.job.id ?? job.name,
      fireAt: data.fireAt ?? job.timestamp,
      kind,
      manual: kind === 'manual',
      args: data.args ?? entry?.args ?? [],
      keys: this.keysOf(prefix),
      history: this.history(prefix),
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
   * A retry owed its run found the slot busy: it stays claimed for it (see `LeaseStore.acquireSlot`),
   * and the job goes back to BullMQ's delayed set to ask again in `slotWaitPollMs`. Records the lost
   * attempt, if that is what brought it here. Always throws BullMQ's `DelayedError`.
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

  private history(prefix: string): RunHistory {
    let history = this.histories.get(prefix);
    if (!history) {
      history = new RunHistory(this.redis, this.keysOf(prefix), this.options.historyLimit);
      this.histories.set(prefix, history);
    }
    return history;
  }

  private leaseId(job: Job): string {
    return `${this.workerId}:${job.id}:${randomUUID().slice(0, 8)}`;
  }

  private jobFields(job: Job): Partial<RunRecord> {
    return { queue: job.queueName, ...(job.id ? { jobId: job.id } : {}), kind: this.kindOf(job) };
  }

  private kindOf(job: Job): RunRecord['kind'] {
    return ((job.data as Partial<OccurrenceJobData> | undefined)?.kind ?? 'scheduled') as RunRecord['kind'];
  }

  private async recordSkip(occurrence: Occurrence, job: Job, skipped: SkippedResult, logger: Logger) {
    const patch: Partial<RunRecord> = {
      outcome: 'skipped',
      reason: skipped.skipped,
      ...(skipped.group ? { group: skipped.group } : {}),
      finishedAt: this.options.clock.now(),
      ...this.jobFields(job),
    };
    await this.record(occurrence, patch, ['skipped'], logger);
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
    startedAt: number | undefined,
    error: unknown,
    logger: Logger,
  ): Promise<boolean> {
    const message = error instanceof Error ? error.message : String(error);
    const attempt = state.attempt;
    const final =
      !(attempt < attemptsAllowed(job) + lostAttempts(state.previous)) || error instanceof UnrecoverableError;
    logger.warn({ err: error, final }, final ? 'run failed' : 'run failed; BullMQ will retry');
    const now = this.options.clock.now();
    if (final) {
      await this.record(
        occurrence,
        {
          outcome: 'failed',
          finishedAt: now,
          error: message,
          attempts: attempt,
          previousAttempts: state.previous.length > 0 ? state.previous : null,
          ...this.jobFields(job),
        },
        ['runs', 'errors'],
        logger,
      );
      this.emit('failed', {
        scheduleId: occurrence.scheduleId,
        name: job.name,
        fireAt: occurrence.fireAt,
        attempts: attempt,
        error: error instanceof Error ? error : new Error(message),
        jobId: job.id,
      });
    } else {
      const failed = {
        attempt,
        outcome: 'failed' as const,
        error: message,
        ...(startedAt !== undefined && { startedAt }),
        endedAt: now,
        worker: this.workerId,
      };
      await this.record(
        occurrence,
        {
          outcome: 'retrying',
          error: message,
          attempts: attempt,
          previousAttempts: [...state.previous, failed],
          ...this.jobFields(job),
        },
        [],
        logger,
      );
    }
    return final;
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

  private emit(event: 'failed' | 'skipped', payload: unknown): void {
    try {
      this.scheduler.emit?.(event, payload);
    } catch (err) {
      this.options.logger.error({ err, event }, 'an event listener threw');
    }
  }
}
