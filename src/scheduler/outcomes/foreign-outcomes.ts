import { QueueKeys } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { sleep, systemClock, type WorkerClock } from '../../queue/worker-clock.js';
import type { RunRecord } from '../../store/index.js';
import {
  enqueuedRecords,
  ForeignOutcomeRecorder,
  hashTag,
  jobsWaiting,
  type Keys,
  liveRuntimeQueues,
  occurrenceField,
  parseOccurrenceJobId,
  queuePrefixFor,
  type RedisTarget,
  readFinishedJobs,
  readJobFields,
  recordFromHash,
  redisTime,
  scanScheduleQueues,
  scheduleIdsOnQueue,
} from '../../store/index.js';
import type { ResolvedForeignOutcomesOptions } from '../contract/index.js';
import { type FinishedEvent, FinishedEventsReader } from './finished-events.js';
import { JOB_FIELDS, jobFields, outcomeOf } from './foreign-job-fields.js';

/**
 * How long the follower's reads of a queue's events, and then its writes of their records, are held back
 * while jobs wait on the queue (a burst being started): they go after the burst's last start, and a
 * record lags its job's end by at most this (plus a gathered read) however long the queue stays busy.
 */
export const FOLLOWER_HOLD_MS = 1000;
/** How often a held batch looks again whether jobs still wait. */
const HOLD_STEP_MS = 25;

/** What `ForeignOutcomes` needs from its manager. */
export interface ForeignOutcomesHost {
  redis: Redis;
  keys: Keys;
  prefix: string;
  historyLimit: number;
  logger: Logger;
  options: ResolvedForeignOutcomesOptions;
  /** The deployment's Redis (its queues' key prefixes). */
  connection: RedisTarget;
  /**
   * The clock of its hold behind a burst and of its passes: the process's (the default), or a test's
   * manual one, so that a hold is tested without sleeping through it.
   */
  clock?: WorkerClock | undefined;
}

/**
 * Records the outcome of occurrences run by a consumer that is not bullbeat's worker runtime (a plain
 * BullMQ `Worker`, a service in another language), so that counters, the dashboard and the CLI show
 * what happened instead of `enqueued` forever. Runs in each scheduler replica:
 *
 * - **events**: a reader of the event stream of each queue where a reconciliation pass found a foreign
 *   consumer (then a one-time catch-up over the kept history of that queue's schedules) turns `completed` /
 *   `failed` into a record (`consumer: 'foreign'`, `startedAt` = `processedOn`, `finishedAt` = `finishedOn`,
 *   `attempts`, `error` = `failedReason`) and counts it;
 * - **reconciliation**: every `reconcileIntervalMs`, the newest records of the next `reconcileBatch`
 *   schedules that are still `enqueued` after `reconcileMinAgeMs` are looked up in BullMQ, which
 *   catches up on events missed while no replica listened. Schedules of a queue that bullbeat's
 *   worker runtime consumes are left out (the runtime records its runs), but for one checking scan
 *   every `runtimeCheckIntervalMs` (a plain Worker beside the runtime on the same queue).
 *
 * Both write through one script that only replaces an `enqueued` record (or writes a missing one),
 * so a bullbeat worker's own records are never overwritten and several replicas observing the same
 * job count it once. The fire path is unchanged.
 */
export class ForeignOutcomes {
  private readonly listeners = new Map<string, FinishedEventsReader>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly bullKeys = new Map<string, QueueKeys>();
  private readonly clock: WorkerClock;
  private timer: unknown;
  private passing: Promise<void> | undefined;
  private cursor = '0';
  /** The partition whose `schedules` the reconciliation scans now. */
  private scanPartition = 0;
  /** This scan looks at the schedules of queues a worker runtime consumes too (see `reconcile`). */
  private checking = false;
  /** When (its clock) a scan next checks the runtime's queues. */
  private nextCheckAt = 0;
  private stopped = false;
  private startedAt = 0;
  private readonly recorder: ForeignOutcomeRecorder;
  /** Events not yet looked at (with when each came, by its clock), and whether a batch of them is being looked at now. */
  private finished: { event: FinishedEvent; at: number }[] = [];
  private flushing = false;
  private flushSoon = false;

  constructor(private readonly host: ForeignOutcomesHost) {
    this.clock = host.clock ?? systemClock;
    this.recorder = new ForeignOutcomeRecorder(host.redis, host.keys, host.historyLimit);
  }

  /** A BullMQ key of a queue, under the queue's prefix (`{bull:<queue>}` on a cluster). */
  private bullKey(queue: string, type: string): string {
    let k = this.bullKeys.get(queue);
    if (!k) {
      k = new QueueKeys(queuePrefixFor(this.host.connection, queue));
      this.bullKeys.set(queue, k);
    }
    return k.toKey(queue, type);
  }

  /**
   * Start the reconciliation passes (the first at once). Events are followed only on queues where a
   * pass has found a foreign consumer (a finished job whose record still says `enqueued`): a queue's
   * event stream carries every job's every event, and reading it for queues that only bullbeat's
   * workers serve would cost every fire for nothing.
   */
  async start(): Promise<void> {
    this.startedAt = this.clock.now();
    this.nextCheckAt = this.startedAt + this.host.options.runtimeCheckIntervalMs;
    this.arm(0);
  }

  /**
   * Follow `queue`'s `completed` / `failed` events too (idempotent), on a connection of its own, read in
   * batches gathered over `gatherMs` (see FinishedEventsReader). Resolves once the reader knows where the
   * stream ends (it follows from there); a reader that cannot start is dropped, and the next pass that
   * finds a foreign outcome on the queue tries again.
   */
  async watch(queue: string): Promise<void> {
    if (this.stopped || this.listeners.has(queue)) return;
    const { logger, options } = this.host;
    const reader = new FinishedEventsReader(
      this.host.redis.duplicate(),
      { events: this.bullKey(queue, 'events'), jobBase: this.bullKey(queue, '') },
      queue,
      options.gatherMs,
      (events, dueAt) => {
        for (const e of events) this.onFinished(e, dueAt);
      },
      (err) => logger.warn({ err: errorText(err), queue }, 'bullbeat: queue events error'),
      () => this.holdRead(queue),
    );
    this.listeners.set(queue, reader);
    try {
      await reader.start();
    } catch (err) {
      logger.warn({ err: errorText(err), queue }, 'bullbeat: could not follow the queue events');
      if (this.listeners.get(queue) === reader) this.listeners.delete(queue);
      await reader.close();
    }
  }

  /** Stop listening and reconciling; waits for the writes in flight. Safe to call twice. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const listeners = [...this.listeners.values()];
    this.listeners.clear();
    await Promise.all(listeners.map((l) => l.close().catch(() => undefined)));
    this.flush(); // the events received before the listeners closed
    await this.passing;
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /**
   * One bounded reconciliation pass over the next batch of schedules; returns how many it recorded.
   * The schedules of a queue that bullbeat's worker runtime consumes (it says so: `runtime-queues.ts`)
   * are passed over: the runtime wrote their records. Only a checking scan (one full scan every
   * `runtimeCheckIntervalMs`) looks at them too, which finds a plain Worker consuming such a queue
   * beside the runtime; a queue found so is followed from then on.
   */
  async reconcile(): Promise<number> {
    const { redis, keys: k, options } = this.host;
    // partition by partition: a pass that ends one partition's scan goes on with the next one's
    const { cursor, schedules } = await scanScheduleQueues(
      redis,
      k,
      this.scanPartition % k.partitions,
      this.cursor,
      options.reconcileBatch,
    );
    const checking = this.checking;
    this.cursor = cursor;
    if (cursor === '0') {
      this.scanPartition = (this.scanPartition + 1) % k.partitions;
      if (this.scanPartition === 0) this.nextScan();
    }
    const runtime = checking ? new Set<string>() : await liveRuntimeQueues(redis, k, await redisTime(redis));
    const ids = schedules
      .filter((s) => !runtime.has(s.queue) || this.listeners.has(s.queue))
      .map((s) => s.id);
    return this.reconcileSchedules(ids, options.reconcileRecent);
  }

  /** A full scan ended: the next one checks the runtime's queues too when `runtimeCheckIntervalMs` has passed. */
  private nextScan(): void {
    const now = this.clock.now();
    this.checking = now >= this.nextCheckAt;
    if (this.checking) this.nextCheckAt = now + this.host.options.runtimeCheckIntervalMs;
  }

  /**
   * A foreign consumer was found on `queue`: follow its events from now on, then catch up once on the
   * whole kept history of every schedule targeting it (what finished before the listener was there).
   */
  private async discover(queue: string): Promise<void> {
    if (this.stopped || this.listeners.has(queue)) return;
    await this.watch(queue);
    const ids = await scheduleIdsOnQueue(this.host.redis, this.host.keys, queue);
    for (let i = 0; i < ids.length; i += this.host.options.reconcileBatch) {
      await this.reconcileSchedules(
        ids.slice(i, i + this.host.options.reconcileBatch),
        this.host.historyLimit,
        true,
      );
    }
  }

  /**
   * Record the outcome of finished jobs whose record still says `enqueued`, in the newest `depth` records
   * (`all`: young ones too, on a queue whose events are followed).
   */
  private async reconcileSchedules(ids: readonly string[], depth: number, all = false): Promise<number> {
    const { redis, keys: k, options } = this.host;
    if (ids.length === 0) return 0;
    // filtered in Redis: a catch-up over `historyLimit` records of every schedule of a queue sends back
    // only the records still `enqueued`
    const enqueued = await enqueuedRecords(redis, k, ids, depth);
    const cutoff = (await redisTime(redis)) - options.reconcileMinAgeMs;
    const candidates: { record: RunRecord; field: string; queue: string; jobId: string }[] = [];
    for (const e of enqueued) {
      const hash: Record<string, string> = { outcome: 'enqueued', queue: e.queue, jobId: e.jobId };
      if (e.enqueuedAt !== undefined) hash.enqueuedAt = String(e.enqueuedAt);
      if (e.kind !== undefined) hash.kind = e.kind;
      const record = recordFromHash(hash, e.scheduleId, e.field);
      if (!record) continue;
      // young records of a queue whose events are followed are left to the events
      if (!all && this.listeners.has(e.queue) && (record.enqueuedAt ?? record.fireAt) > cutoff) continue;
      candidates.push({ record, field: e.field, queue: e.queue, jobId: e.jobId });
    }
    if (candidates.length === 0) return 0;
    const res = await readFinishedJobs(
      redis,
      candidates.map((c) => ({
        completedKey: this.bullKey(c.queue, 'completed'),
        failedKey: this.bullKey(c.queue, 'failed'),
        jobKey: this.bullKey(c.queue, c.jobId),
        jobId: c.jobId,
        fields: JOB_FIELDS,
      })),
    );
    const found = new Set<string>();
    const writes: Promise<boolean>[] = [];
    for (const [i, c] of candidates.entries()) {
      const { completed, failed, fields } = res[i]!;
      if (!completed && !failed) continue;
      const job = jobFields(fields);
      // written together: one script call per partition
      const written = this.recorder.record({
        ...outcomeOf(job, completed ? 'completed' : 'failed', undefined),
        scheduleId: c.record.scheduleId,
        fireAt: c.record.fireAt,
        field: c.field,
        queue: c.queue,
        jobId: c.jobId,
        kind: c.record.kind ?? 'scheduled',
      });
      // A foreign consumer is found only by an outcome written: the script writes over `enqueued`
      // alone, so a record a bullbeat worker moved on between the read above and the job's finish
      // (its run started and ended meanwhile) finds nothing.
      writes.push(
        written.then((ok) => {
          if (ok && !this.listeners.has(c.queue)) found.add(c.queue);
          return ok;
        }),
      );
    }
    const recorded = (await Promise.all(writes)).filter(Boolean).length;
    for (const queue of found) await this.discover(queue);
    return recorded;
  }

  /**
   * The wait before the next pass: the interval, but at most 2 s in a replica's first minute while no
   * foreign consumer has been found, so that one is found before its first outcomes leave the kept
   * history (an outcome older than the newest `historyLimit` records is not recorded).
   */
  private nextPassMs(): number {
    const interval = this.host.options.reconcileIntervalMs;
    const early = this.listeners.size === 0 && this.clock.now() - this.startedAt < 60_000;
    return early ? Math.min(2000, interval) : interval;
  }

  private arm(delayMs: number): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      this.passing = this.reconcile()
        .then((n) => {
          if (n > 0) this.host.logger.debug({ recorded: n }, 'bullbeat: foreign outcomes reconciled');
        })
        .catch((err: unknown) =>
          this.host.logger.warn({ err }, 'bullbeat: reconciling foreign outcomes failed'),
        )
        .finally(() => {
          this.passing = undefined;
          this.arm(this.nextPassMs());
        });
    }, delayMs);
    (this.timer as { unref?: () => void }).unref?.(); // a process is not kept alive by it alone
  }

  private track(p: Promise<unknown>): void {
    const tracked = p.catch((err: unknown) =>
      this.host.logger.warn({ err }, 'bullbeat: recording a foreign outcome failed'),
    );
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  /**
   * Hold a read of `queue`'s events while its jobs wait to start (a burst), up to `FOLLOWER_HOLD_MS`:
   * the read (a script that reads each finished job's fields) is Redis work the burst's starts would
   * wait behind. Resolves with when the read was due (its events' hold counts from then). Not at a stop.
   */
  private async holdRead(queue: string): Promise<number> {
    const dueAt = this.clock.now();
    await this.whileJobsWait(
      () => dueAt,
      () => [queue],
    );
    return dueAt;
  }

  /**
   * A `completed` / `failed` event: looked at with the others of its read (a gathered read carries
   * many), at the end of the tick, or after the batch being looked at now. `dueAt`: when its read was
   * due, before a hold (its writes are held no longer than `FOLLOWER_HOLD_MS` from then).
   */
  private onFinished(event: FinishedEvent, dueAt?: number): void {
    if (!parseOccurrenceJobId(event.jobId)) return; // not an occurrence: nothing to record, nothing to hold
    this.finished.push({ event, at: dueAt ?? this.clock.now() });
    if (this.flushing || this.flushSoon) return;
    this.flushSoon = true;
    setImmediate(() => {
      this.flushSoon = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.flushing || this.finished.length === 0) return;
    this.flushing = true;
    this.track(
      this.afterBurst()
        .then(() => this.recordFinished(this.finished.splice(0, 1000).map((f) => f.event)))
        .finally(() => {
          this.flushing = false;
          this.flush();
        }),
    );
  }

  /**
   * Hold the events back while jobs wait on their queues, up to `FOLLOWER_HOLD_MS` after the oldest
   * came: reading and writing records is Redis work the burst's starts would wait behind. Events that
   * come meanwhile join the batch. Not at a stop.
   */
  private afterBurst(): Promise<void> {
    return this.whileJobsWait(
      () => this.finished[0]!.at,
      () => new Set(this.finished.map((f) => f.event.queue)),
    );
  }

  /**
   * Wait while jobs wait on the `queues` (looked at again each step), until `FOLLOWER_HOLD_MS` after
   * `since`, the follower stops, or the queues cannot be read (then at once).
   */
  private async whileJobsWait(since: () => number, queues: () => Iterable<string>): Promise<void> {
    for (;;) {
      const left = FOLLOWER_HOLD_MS - (this.clock.now() - since());
      if (this.stopped || left <= 0) return;
      try {
        const waitKeys = [...queues()].map((q) => this.bullKey(q, 'wait'));
        if (!(await jobsWaiting(this.host.redis, waitKeys))) return;
      } catch {
        return; // cannot tell: go on now
      }
      await sleep(this.clock, Math.min(HOLD_STEP_MS, left));
    }
  }

  /**
   * Record the events' outcomes unless a bullbeat worker wrote them already: the writes over the
   * records the completions wrote (one script call per partition, which leaves alone any record that is
   * not `enqueued` for the same job), from the job fields read with the events. An occurrence with no
   * record yet (its job finished before its completion was written) is recorded after its job's data
   * says it is this deployment's (`recordFirsts`).
   */
  private async recordFinished(events: readonly FinishedEvent[]): Promise<void> {
    const found = events.flatMap((e) => {
      const occ = parseOccurrenceJobId(e.jobId);
      return occ ? [{ ...e, occ, field: occurrenceField(occ.fireAt, occ.manual) }] : [];
    });
    if (found.length === 0) return;
    const firsts: typeof found = [];
    const writes = found.map(async (f) => {
      const { occ } = f;
      const written = await this.recorder.recordOver({
        ...outcomeOf(jobFields(f.fields), f.state, f.failedReason),
        scheduleId: occ.scheduleId,
        fireAt: occ.fireAt,
        field: f.field,
        queue: f.queue,
        jobId: f.jobId,
      });
      if (written === 'no-record') firsts.push(f);
    });
    const failed = (await Promise.allSettled(writes)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (firsts.length > 0) await this.recordFirsts(firsts);
  }

  /**
   * The first record of finished occurrences that have none: only for jobs whose data names this
   * deployment (another one may enqueue jobs of the same ids on a shared queue).
   */
  private async recordFirsts(
    found: readonly (FinishedEvent & {
      occ: NonNullable<ReturnType<typeof parseOccurrenceJobId>>;
      field: string;
    })[],
  ): Promise<void> {
    const fields = await readJobFields(
      this.host.redis,
      found.map((f) => ({ jobKey: this.bullKey(f.queue, f.jobId), fields: JOB_FIELDS })),
    );
    const writes = found.map((f, i) => {
      const raw = fields[i];
      if (raw === undefined || raw instanceof Error) return Promise.resolve(false);
      const job = jobFields(raw);
      if (!job.prefix || hashTag(job.prefix) !== hashTag(this.host.prefix)) return Promise.resolve(false);
      const { occ } = f;
      return this.recorder.record({
        ...outcomeOf(job, f.state, f.failedReason),
        scheduleId: occ.scheduleId,
        fireAt: occ.fireAt,
        field: f.field,
        queue: f.queue,
        jobId: f.jobId,
        kind: job.kind ?? (occ.manual === 'backfill' ? 'backfill' : occ.manual ? 'manual' : 'scheduled'),
      });
    });
    const failed = (await Promise.allSettled(writes)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
