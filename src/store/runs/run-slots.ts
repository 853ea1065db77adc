import type { Redis } from 'ioredis';
import type { SlotRule } from '../forms/index.js';
import { DEFAULT_AUDIT, DEFAULT_SLOT_RULE } from '../forms/index.js';
import { type Keys, occurrenceField, type RecordLane } from '../keys/index.js';
import type { RunCounter, RunPatch } from '../reads/index.js';
import type { FinishRunArgs, RunFinish, RunStart, StartRunArgs } from '../scripts/index.js';
import { LeaseScripts, RunPathScripts } from '../scripts/index.js';
import { BACKFILL_LEDGER_TTL_MS } from './backfill-ledger.js';

const NO_PAUSE = { afterFailures: 0, note: '', at: 0 } as const;

/** One occurrence of a schedule, as the run scripts address it. */
export interface RunTarget {
  scheduleId: string;
  fireAt: number;
  /** The record lane: `true` a manual run, `'backfill'` a backfilled occurrence (see `occurrenceField`). */
  manual: RecordLane;
}

export type { RunFinish, RunStart };

/**
 * The worker runtime's lean run path: one script to start a run (overlap policy on the run slot, the
 * fencing token, the `running` or `skipped` record) and one to finish it (the outcome unless fenced off,
 * the lease given back, the failure streak and `pauseOnFailure`). See `lua/start-runs-1.lua`,
 * `lua/finish-runs-5.lua`; the runs that start (finish) together in a worker go in one call.
 */
export class RunSlots {
  /** The runs starting and finishing together go in one script call per partition (see ScriptBatcher). */
  private readonly starts: (lane: number, run: StartRunArgs) => Promise<RunStart>;
  private readonly finishes: (lane: number, run: FinishRunArgs) => Promise<RunFinish>;
  private readonly scripts: RunPathScripts;
  private readonly leases: LeaseScripts;

  constructor(
    redis: Redis,
    private readonly keys: Keys,
    /** Lease lifetime (ms), also an owed claim's and a waiter's. */
    readonly ttlMs: number,
    /** Records kept per schedule. */
    historyLimit: number,
    /** Audit entries kept per schedule (a pause on failure writes one). */
    auditLimit = DEFAULT_AUDIT.limit,
  ) {
    this.scripts = new RunPathScripts(redis);
    this.leases = new LeaseScripts(redis);
    this.starts = this.scripts.startRuns(keys, { ttlMs, historyLimit, markKeptMs: BACKFILL_LEDGER_TTL_MS });
    this.finishes = this.scripts.finishRuns(keys, { historyLimit, auditLimit });
  }

  async start(
    run: RunTarget,
    rule: SlotRule,
    ids: {
      leaseId: string;
      jobId: string;
      /** A retry owed its run: `jobId` is the one owed the slot. */
      owed?: boolean;
      firstDelivery?: boolean;
      /** The occurrence's start mark (`StartRunArgs.mark`). */
      mark?: StartRunArgs['mark'];
      /** The caller writes the `running` record behind (`StartRunArgs.runningBehind`). */
      runningBehind?: boolean;
    },
    running: RunPatch,
    skipped: RunPatch,
  ): Promise<RunStart> {
    const id = run.scheduleId;
    const lane = this.keys.partitionOf(id);
    const start = await this.starts(lane, {
      scheduleId: id,
      leaseId: ids.leaseId,
      rule,
      owed: ids.owed === true,
      jobId: ids.jobId,
      field: occurrenceField(run.fireAt, run.manual),
      fireAt: run.fireAt,
      firstDelivery: ids.firstDelivery === true,
      mark: ids.mark,
      running,
      skipped,
      runningBehind: ids.runningBehind === true,
    });
    if ((start.status === 'skipped' || start.status === 'refused') && start.factsMissing) {
      // the lean start wrote the `skipped` record without the job's facts, and no `enqueued` record
      // held them: written now (unfenced, nothing given back or counted)
      const { outcome: _o, finishedAt: _f, ...facts } = skipped;
      await this.finishes(lane, {
        scheduleId: id,
        leaseId: undefined,
        field: occurrenceField(run.fireAt, run.manual),
        fireAt: run.fireAt,
        outcome: facts,
        counters: [],
        fencingToken: undefined,
        streak: undefined,
        pause: NO_PAUSE,
        mode: rule.mode,
      });
    }
    return start;
  }

  finish(
    run: RunTarget,
    leaseId: string | undefined,
    /** The run's token; undefined when it never started (written unfenced). */
    fencingToken: number | undefined,
    outcome: RunPatch,
    counters: readonly RunCounter[],
    streak: 'ok' | 'failed' | undefined,
    pause: { afterFailures: number; note: string; at: number },
    /** The slot rule the run started under (which waiters and marks it may have left). */
    rule: SlotRule = DEFAULT_SLOT_RULE,
    /** The outcome's `finishedAt` is the run's end as given (`FinishRunArgs.finishedAtGiven`). */
    finishedAtGiven = false,
  ): Promise<RunFinish> {
    const id = run.scheduleId;
    return this.finishes(this.keys.partitionOf(id), {
      scheduleId: id,
      leaseId,
      field: occurrenceField(run.fireAt, run.manual),
      fireAt: run.fireAt,
      outcome,
      counters,
      fencingToken,
      streak,
      pause,
      mode: rule.mode,
      sole: rule.mode !== 'none' && rule.cap === 1,
      finishedAtGiven,
    });
  }

  /**
   * A `running` record written behind (the worker's `recordLagMs`), fenced by the run's token as an
   * outcome is (`finish-runs-5` giving back no lease, counting nothing): false when a newer run of the
   * occurrence holds the record.
   */
  async writeRunning(
    run: RunTarget,
    fencingToken: number | undefined,
    running: RunPatch,
    mode: SlotRule['mode'],
  ): Promise<boolean> {
    const id = run.scheduleId;
    const done = await this.finishes(this.keys.partitionOf(id), {
      scheduleId: id,
      leaseId: undefined,
      field: occurrenceField(run.fireAt, run.manual),
      fireAt: run.fireAt,
      outcome: running,
      counters: [],
      fencingToken,
      streak: undefined,
      pause: NO_PAUSE,
      mode,
    });
    return done.written;
  }

  /** Extend a run's slot lease: `held`, `gone` (lapsed, maybe given away) or `cancelled` (asked to stop). */
  async renew(scheduleId: string, leaseId: string): Promise<'held' | 'gone' | 'cancelled'> {
    return this.leases.renewRun(this.keys, { scheduleId, leaseId, ttlMs: this.ttlMs });
  }
}
