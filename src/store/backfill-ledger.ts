import type { Redis } from 'ioredis';
import type { Keys } from './keys.js';
import type { RunPatch } from './run-history.js';
import { defineStoreScripts } from './scripts.js';

/** How long a schedule's backfill ledger is kept after its last backfill: 90 days. */
export const BACKFILL_LEDGER_TTL_MS = 90 * 24 * 3600 * 1000;

/** What a backfill finds about one occurrence before enqueueing it (`lua/backfill-check-5.lua`). */
export type BackfillVerdict =
  | 'run' // nothing ran it: enqueue it
  | 'ran' // its scheduled record shows it enqueued or run
  | 'backfilled' // a backfill enqueued it already
  | 'scheduled' // the schedule's own firing has it ahead (at or after its claimed or due time)
  | 'future'; // after Redis's clock

const VERDICTS: readonly BackfillVerdict[] = ['run', 'ran', 'backfilled', 'scheduled', 'future'];

/**
 * The store side of a backfill: which occurrences of a range may run, and the ledger that remembers
 * the ones a backfill enqueued, so that no two backfills (from any process, at any time while the
 * ledger is kept) run one twice.
 */
export class BackfillLedger {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    /** How many records each schedule keeps (`historyLimit`). */
    private readonly historyLimit = 100,
  ) {
    defineStoreScripts(redis);
  }

  /** Redis time and a verdict per fire time; null when the schedule does not exist. */
  async check(
    scheduleId: string,
    fireAts: readonly number[],
  ): Promise<{ now: number; verdicts: BackfillVerdict[] } | null> {
    const k = this.keys.of(scheduleId); // its partition's keys (one slot)
    const out = await this.redis.bbBackfillCheck(
      k.runs(scheduleId),
      k.backfills(scheduleId),
      k.due,
      k.claim,
      k.schedules,
      scheduleId,
      ...fireAts,
    );
    if (out[0] === -1) return null;
    return { now: Number(out[0]), verdicts: out.slice(1).map((c) => VERDICTS[Number(c)] ?? 'ran') };
  }

  /**
   * Put enqueued occurrences in the ledger and give each its `enqueued` record (`b<time>`), in one
   * step. False when the schedule no longer exists (nothing written).
   */
  async mark(scheduleId: string, entries: readonly { fireAt: number; patch: RunPatch }[]): Promise<boolean> {
    if (entries.length === 0) return true;
    const k = this.keys.of(scheduleId); // its partition's keys (one slot)
    const args: (string | number)[] = [];
    for (const e of entries)
      args.push(e.fireAt, JSON.stringify({ scheduleId, fireAt: e.fireAt, ...e.patch }));
    const written = await this.redis.bbBackfillMark(
      k.runs(scheduleId),
      k.runIndex(scheduleId),
      k.backfills(scheduleId),
      k.schedules,
      scheduleId,
      this.historyLimit,
      BACKFILL_LEDGER_TTL_MS,
      ...args,
    );
    return written !== -1;
  }

  /** Forget a schedule's ledger (when it is removed). */
  async clear(scheduleId: string): Promise<void> {
    await this.redis.del(this.keys.backfills(scheduleId));
  }
}
