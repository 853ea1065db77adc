import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RunRecord } from '../store/index.js';
import {
  type Keys,
  keys,
  laneOf,
  type RecordLane,
  type ResolvedRunOptions,
  RunHistory,
  RunSlots,
  resolveRunOptions,
} from '../store/index.js';
import { traceSteps } from '../tracing/run-tracing.js';
import { isWrappedData, OccurrenceFacts } from './plain-occurrence.js';
import type { ResolvedWorkerOptions } from './worker-options.js';
import type { WorkerScheduler } from './worker-scheduler.js';

/** One occurrence as the runner sees it: the job data with every gap filled. */
export interface Occurrence {
  scheduleId: string;
  fireAt: number;
  kind: RunRecord['kind'];
  manual: RecordLane;
  args: readonly unknown[];
  keys: Keys;
  history: RunHistory;
  slots: RunSlots;
  /** Its run options, the overlap rule resolved (`run.slot`). */
  run: ResolvedRunOptions;
}

/**
 * The start mark a delivery asks for (start-runs-1): every backfill and catch-up start is marked (their
 * owed runs may be enqueued by a sweep as well as by their taker); a scheduled one only once its claim
 * was taken over; a manual run never. The stamp names this add of the job id.
 */
export function startMarkOf(
  occurrence: Occurrence,
  job: Job,
): { stamp: number; always: boolean } | undefined {
  if (occurrence.kind === 'manual') return undefined;
  return { stamp: job.timestamp, always: occurrence.kind !== 'scheduled' };
}

/** A deployment's keys and the stores on them, by prefix. */
interface DeploymentStores {
  keys: Keys;
  history: RunHistory;
  slots: RunSlots;
}

/**
 * Where a job's occurrence comes from: its payload (or, for a job bullbeat did not enqueue, the facts
 * read about it), with the stores of its deployment's prefix (made once per prefix).
 */
export class OccurrenceSource {
  private readonly stores = new Map<string, DeploymentStores>();
  private readonly facts: OccurrenceFacts;

  constructor(
    private readonly scheduler: WorkerScheduler,
    private readonly redis: Redis,
    private readonly options: ResolvedWorkerOptions,
  ) {
    this.facts = new OccurrenceFacts(scheduler);
  }

  async of(job: Job): Promise<Occurrence> {
    // an occurrence's own job carries it all: no wait on the facts of a plain one
    const data = isWrappedData(job.data) ? job.data : await this.facts.of(job);
    const entry = this.scheduler.handlerFor(job.name, data.scheduleId);
    const prefix = data.prefix ?? this.scheduler.prefix;
    const kind = data.kind ?? 'scheduled';
    const { history, slots, keys } = this.storesOf(prefix);
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
  async readRecord(occurrence: Occurrence): Promise<RunRecord | null> {
    try {
      return await occurrence.history.get(occurrence.scheduleId, occurrence.fireAt, occurrence.manual);
    } catch (err) {
      this.options.logger.warn({ err, scheduleId: occurrence.scheduleId }, 'could not read the run record');
      return null;
    }
  }

  /** What a record says of the job: its queue, id and kind. */
  jobFields(job: Job): Partial<RunRecord> {
    return { queue: job.queueName, ...(job.id ? { jobId: job.id } : {}), kind: this.facts.kindOf(job) };
  }

  /** The keys of a deployment: the scheduler's partitions for its own prefix (see `WorkerScheduler.partitions`). */
  private keysOf(prefix: string): Keys {
    return keys(prefix, prefix === this.scheduler.prefix ? (this.scheduler.partitions ?? 1) : 1);
  }

  /** The stores of a deployment's prefix (made once: its keys, its history, its run slots). */
  private storesOf(prefix: string): DeploymentStores {
    let stores = this.stores.get(prefix);
    if (!stores) {
      const k = this.keysOf(prefix);
      const { leaseTtlMs, historyLimit, auditLimit } = this.options;
      stores = {
        keys: k,
        history: new RunHistory(this.redis, k, historyLimit),
        slots: traceSteps(new RunSlots(this.redis, k, leaseTtlMs, historyLimit, auditLimit), {
          start: 'bullbeat.start',
          finish: 'bullbeat.record',
          writeRunning: 'bullbeat.record',
        }),
      };
      this.stores.set(prefix, stores);
    }
    return stores;
  }
}
