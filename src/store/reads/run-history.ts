import type { Redis } from 'ioredis';
import type { RunRecord } from '../forms/index.js';
import { type Keys, occurrenceField, type RecordLane } from '../keys/index.js';
import { ScheduleScripts } from '../scripts/index.js';
import { readHistories, readRecords, recordKeysOf } from './record-reads.js';

/** A change to a run record: fields to set, and fields to remove (given as `null`). */
export type RunPatch = { [K in keyof RunRecord]?: RunRecord[K] | null };

/** Counters kept per schedule and in total. */
/** `coalesced`: occurrences not enqueued while the previous one still waited in its queue (backpressure). */
export type RunCounter = 'runs' | 'errors' | 'skipped' | 'missed' | 'coalesced';

/**
 * The bounded per-schedule history of occurrences. The scheduler writes `enqueued`, `missed` and
 * `skipped` records; workers write `running`, `succeeded`, `failed` and overlap skips. Each write is
 * a merge into the occurrence's record by the one merge rule (`lua/includes/record.lua`: a `null`
 * removes a fact, `enqueued` never replaces an outcome; the record is a hash of facts, `record-form.ts`), trimmed by the one trim rule
 * (`lua/includes/history.lua`), so writers never overwrite each other's fields.
 */
export class RunHistory {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    /** How many occurrences each schedule keeps. Default: 100. */
    private readonly limit = 100,
  ) {
    this.scripts = new ScheduleScripts(redis);
  }

  private readonly scripts: ScheduleScripts;

  /**
   * Merge `patch` into the record of occurrence `(scheduleId, fireAt)` and bump `counters`
   * (`lua/merge-run-4.lua`). A field given as `null` is removed; an `enqueued` outcome never replaces
   * an outcome already recorded.
   */
  async merge(
    scheduleId: string,
    fireAt: number,
    manual: RecordLane,
    patch: RunPatch,
    counters: readonly RunCounter[] = [],
  ): Promise<void> {
    await this.scripts.mergeRun(this.keys, {
      scheduleId,
      field: occurrenceField(fireAt, manual),
      fireAt,
      historyLimit: this.limit,
      counters,
      patch,
    });
  }

  /** The newest `limit` records of a schedule, newest first. */
  async list(scheduleId: string, limit = this.limit): Promise<RunRecord[]> {
    return (await readHistories(this.redis, this.keys, [scheduleId], limit))[0] ?? [];
  }

  /**
   * One occurrence's own record, or null: one read, what a run's start checks. An occurrence coalesced
   * in a span has none of its own (its stand-in's record keeps it); `find` reads it as `list` shows it.
   */
  async get(scheduleId: string, fireAt: number, manual: RecordLane = false): Promise<RunRecord | null> {
    const fields = [occurrenceField(fireAt, manual)];
    return (await readRecords(this.redis, this.keys, [{ scheduleId, fields }]))[0]?.[0] ?? null;
  }

  /**
   * One scheduled occurrence's record as the history shows it: its own, or, for one coalesced in a
   * span while a consumer or the scheduler was behind, the `skipped`/`coalesced` record `list` shows
   * (read from the kept history: a second read, on a miss only).
   */
  async find(scheduleId: string, fireAt: number): Promise<RunRecord | null> {
    const own = await this.get(scheduleId, fireAt);
    if (own) return own;
    return (await this.list(scheduleId)).find((r) => r.fireAt === fireAt && r.kind === 'scheduled') ?? null;
  }

  /** How many occurrences' records a schedule keeps now (at most `historyLimit`). */
  async size(scheduleId: string): Promise<number> {
    return this.redis.zcard(this.keys.runIndex(scheduleId));
  }

  /** A schedule's counters (missing ones are 0). */
  async counts(scheduleId: string): Promise<Record<RunCounter, number>> {
    return countsFrom(await this.redis.hgetall(this.keys.counts(scheduleId)));
  }

  /** The counters summed over every schedule. */
  async totals(): Promise<Record<RunCounter, number>> {
    return countsFrom(await this.rawTotals());
  }

  /** Every field of the totals (`reclaimed` and `errored` too), summed over the partitions. */
  async rawTotals(): Promise<Record<string, string>> {
    const all = await Promise.all(this.keys.all().map((k) => this.redis.hgetall(k.totals)));
    if (all.length === 1) return all[0]!;
    const sum: Record<string, string> = {};
    for (const raw of all) {
      for (const [f, v] of Object.entries(raw)) sum[f] = String(Number(sum[f] ?? 0) + Number(v));
    }
    return sum;
  }

  /** Forget a schedule's history and counters (the totals keep what it contributed). */
  async clear(scheduleId: string): Promise<void> {
    const k = this.keys;
    const records = await recordKeysOf(this.redis, k, scheduleId);
    await this.redis.del(...records, k.runs(scheduleId), k.runIndex(scheduleId), k.counts(scheduleId));
  }
}

/** Decode a counters hash (`counts:<id>` or `totals`): the one reader of its fields; missing ones are 0. */
export function countsFrom(raw: Record<string, string>): Record<RunCounter, number> {
  return {
    runs: Number(raw.runs ?? 0),
    errors: Number(raw.errors ?? 0),
    skipped: Number(raw.skipped ?? 0),
    missed: Number(raw.missed ?? 0),
    coalesced: Number(raw.coalesced ?? 0),
  };
}
