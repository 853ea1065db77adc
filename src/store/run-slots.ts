import type { Redis } from 'ioredis';
import { DEFAULT_AUDIT } from './audit-trail.js';
import { type Keys, occurrenceField, type RecordLane } from './keys.js';
import type { SlotRule } from './overlap-policy.js';
import { counted, patchArgs } from './record-form.js';
import type { RunCounter, RunPatch } from './run-history.js';
import type { SkipReason } from './run-record.js';
import { ScriptBatcher } from './script-batcher.js';
import { defineStoreScripts } from './scripts.js';
import { StoreScripts } from './store-scripts.js';

/** One occurrence of a schedule, as the run scripts address it. */
export interface RunTarget {
  scheduleId: string;
  fireAt: number;
  /** The record lane: `true` a manual run, `'backfill'` a backfilled occurrence (see `occurrenceField`). */
  manual: RecordLane;
}

/** What `start` decided. */
export type RunStart =
  /** `at`: Redis TIME of the start (the record's `startedAt`). */
  | { status: 'started'; live: number; fencingToken: number; at: number }
  /** `at`: Redis TIME of the skip (the record's `finishedAt`). */
  | { status: 'skipped'; live: number; reason: SkipReason; at: number }
  /** Not now: a retry owed its run, or an occurrence buffered for the slot, asks again later. */
  | { status: 'wait'; live: number }
  /** Asked as a first delivery, but the record shows an earlier attempt of this job: read it, ask again. */
  | { status: 'reread' }
  /**
   * Asked as a first delivery, but the record shows this job succeeded, was skipped or cancelled: the
   * same occurrence enqueued again after its job left BullMQ. Nothing was taken or written.
   */
  | { status: 'ran' };

/** What `finish` did. */
export interface RunFinish {
  /** False when a newer run of the occurrence holds its record (fenced off): nothing was written. */
  written: boolean;
  /** The schedule was paused by this failure (`pauseOnFailure`). */
  paused: boolean;
  /** The job id next in line for the slot (a retry owed it, or a buffered occurrence), if any. */
  next?: string;
}

/**
 * The worker runtime's lean run path: one script to start a run (overlap policy on the run slot, the
 * fencing token, the `running` or `skipped` record) and one to finish it (the outcome unless fenced off,
 * the lease given back, the failure streak and `pauseOnFailure`). See `lua/start-runs-1.lua`,
 * `lua/finish-runs-5.lua`; the runs that start (finish) together in a worker go in one call.
 */
export class RunSlots {
  /** The runs starting and finishing together go in one script call per partition (see ScriptBatcher). */
  private readonly starts: ScriptBatcher;
  private readonly finishes: ScriptBatcher;
  private readonly scripts: StoreScripts;

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
    defineStoreScripts(redis);
    this.scripts = new StoreScripts(redis);
    // a batch is of one partition: its shared keys and values first, then each run's (see the scripts)
    this.starts = new ScriptBatcher((lane, runs) => {
      const k = keys.partition(lane);
      return redis.bbStartRuns(k.totals, k.base, ttlMs, historyLimit, k.cancel, ...runs);
    }, 5);
    this.finishes = new ScriptBatcher((lane, runs) => {
      const k = keys.partition(lane);
      return redis.bbFinishRuns(
        k.totals,
        k.state,
        k.due,
        k.resched,
        k.pauseNotes,
        k.base,
        historyLimit,
        k.wake,
        auditLimit,
        ...runs,
      );
    }, 3);
  }

  async start(
    run: RunTarget,
    rule: SlotRule,
    ids: { leaseId: string; jobId: string; owedId?: string | undefined; firstDelivery?: boolean },
    running: RunPatch,
    skipped: RunPatch,
  ): Promise<RunStart> {
    const id = run.scheduleId;
    // the instants are the script's Redis TIME (`startedAt`, a skip's `finishedAt`): not sent
    const { startedAt: _s, ...runningFacts } = running;
    const { finishedAt: _f, ...skippedFacts } = skipped;
    const r = patchArgs(runningFacts);
    const [status, live, token, at, reason] = (await this.starts.call(this.keys.partitionOf(id), [
      id,
      ids.leaseId,
      rule.mode,
      rule.cap,
      ids.owedId ?? '',
      ids.jobId,
      occurrenceField(run.fireAt, run.manual),
      run.fireAt,
      ids.firstDelivery ? '1' : '0',
      ...counted(r.set),
      r.drop,
      ...counted(patchArgs(skippedFacts).set),
    ])) as [number, number, number, number, string];
    if (status === 4) return { status: 'ran' };
    if (status === 3) return { status: 'reread' };
    if (status === 1) return { status: 'started', live, fencingToken: Number(token), at: Number(at) };
    if (status === 0) return { status: 'skipped', live, reason: reason as SkipReason, at: Number(at) };
    return { status: 'wait', live };
  }

  async finish(
    run: RunTarget,
    leaseId: string | undefined,
    /** The run's token; undefined when it never started (written unfenced). */
    fencingToken: number | undefined,
    outcome: RunPatch,
    counters: readonly RunCounter[],
    streak: 'ok' | 'failed' | undefined,
    pause: { afterFailures: number; note: string; at: number },
    /** The slot rule the run started under (which waiters and marks it may have left). */
    mode: SlotRule['mode'] = 'skip',
  ): Promise<RunFinish> {
    const id = run.scheduleId;
    // a `finishedAt` is the script's Redis TIME: not sent
    const { finishedAt, ...facts } = outcome;
    const p = patchArgs(facts);
    const [written, paused, next] = (await this.finishes.call(this.keys.partitionOf(id), [
      id,
      leaseId ?? '',
      occurrenceField(run.fireAt, run.manual),
      run.fireAt,
      finishedAt === null ? '' : finishedAt === undefined ? '' : '1',
      counters.join(','),
      fencingToken ?? '',
      streak ?? '',
      pause.afterFailures,
      pause.afterFailures > 0 ? JSON.stringify({ note: pause.note, by: 'pauseOnFailure', at: pause.at }) : '',
      mode,
      ...counted(p.set),
      finishedAt === null ? (p.drop ? `${p.drop},finishedAt` : 'finishedAt') : p.drop,
    ])) as [number, number, string];
    return { written: written === 1, paused: paused === 1, ...(next ? { next } : {}) };
  }

  /** Extend a run's slot lease: `held`, `gone` (lapsed, maybe given away) or `cancelled` (asked to stop). */
  async renew(scheduleId: string, leaseId: string): Promise<'held' | 'gone' | 'cancelled'> {
    return this.scripts.renewRun(this.keys, { scheduleId, leaseId, ttlMs: this.ttlMs });
  }
}
