import type { Redis } from 'ioredis';
import type { RunRecord } from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import { ScheduleScripts } from '../scripts/index.js';

/** One finished occurrence as BullMQ tells it. */
export interface ForeignOutcome {
  scheduleId: string;
  fireAt: number;
  /** The record field (`occurrenceField`): the fire time, `m<time>` for a manual run, `b<time>` for a backfilled one. */
  field: string;
  queue: string;
  jobId: string;
  outcome: 'succeeded' | 'failed';
  /** From the job's data; kept only when no record was there yet. */
  kind: RunRecord['kind'];
  /** BullMQ's `processedOn` (when the last attempt started), if known. */
  startedAt?: number;
  /** BullMQ's `finishedOn`, if known. */
  finishedAt?: number;
  /** BullMQ's `attemptsMade`, if known. */
  attempts?: number;
  /** BullMQ's `failedReason`, for a failed job. */
  error?: string;
}

/**
 * Records, once each, the outcomes of occurrences a consumer other than bullbeat's worker runtime ran
 * (`lua/foreign-outcomes-2.lua`: only over an `enqueued` record of the same job, or as a first record
 * the history would keep). The outcomes recorded together (a read of a queue's events carries many) go
 * in script calls per partition (`ScriptBatcher`), not one call each, of at most OUTCOMES_PER_CALL: a call
 * runs atomically (~50 µs an outcome), and a fire due meanwhile waits for it.
 */
/** The most outcomes one script call writes (~1 ms of Redis). */
const OUTCOMES_PER_CALL = 20;

export class ForeignOutcomeRecorder {
  private readonly write: ReturnType<ScheduleScripts['foreignOutcomes']>;

  constructor(
    redis: Redis,
    private readonly keys: Keys,
    historyLimit: number,
  ) {
    this.write = new ScheduleScripts(redis).foreignOutcomes(keys, {
      historyLimit,
      perCall: OUTCOMES_PER_CALL,
    });
  }

  /** True when written and counted, false when left alone. */
  async record(o: ForeignOutcome): Promise<boolean> {
    return (await this.patch(o, o.kind)) === true;
  }

  /**
   * The same, written only over a record that is there (one the completion wrote); `no-record` when there
   * is none yet, and nothing was written: whose job it is must be checked first (its data), then `record`.
   */
  recordOver(o: Omit<ForeignOutcome, 'kind'>): Promise<boolean | 'no-record'> {
    return this.patch(o, undefined);
  }

  private patch(
    o: Omit<ForeignOutcome, 'kind'>,
    kind: RunRecord['kind'] | undefined,
  ): Promise<boolean | 'no-record'> {
    // (plain assignments, not conditional spreads: this runs once per outcome)
    const patch: Partial<RunRecord> = {
      outcome: o.outcome,
      consumer: 'foreign',
      queue: o.queue,
      jobId: o.jobId,
    };
    if (o.startedAt !== undefined) patch.startedAt = o.startedAt;
    if (o.finishedAt !== undefined) patch.finishedAt = o.finishedAt;
    if (o.attempts !== undefined) patch.attempts = o.attempts;
    if (o.error !== undefined) patch.error = o.error;
    return this.write(this.keys.partitionOf(o.scheduleId), {
      scheduleId: o.scheduleId,
      field: o.field,
      fireAt: o.fireAt,
      jobId: o.jobId,
      counters: o.outcome === 'failed' ? ['runs', 'errors'] : ['runs'],
      kind,
      patch,
    });
  }
}
