import type { Redis, Result } from 'ioredis';
import { type Keys, occurrenceField } from './keys.js';
import type { RunRecord } from './run-record.js';

/** A change to a run record: fields to set, and fields to remove (given as `null`). */
export type RunPatch = { [K in keyof RunRecord]?: RunRecord[K] | null };

/** Counters kept per schedule and in total. */
export type RunCounter = 'runs' | 'errors' | 'skipped' | 'missed';

// Merge a patch into one occurrence's record (a null value removes the field), index it, trim the
// history to its bound, and bump counters, atomically. KEYS: runs hash, run index, per-schedule counts, totals.
// ARGV: field, score (fire time), JSON patch, history limit, counters (comma-separated, may be empty).
const MERGE_SCRIPT = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
local record = current and cjson.decode(current) or {}
for k, v in pairs(cjson.decode(ARGV[3])) do
  if v == cjson.null then record[k] = nil else record[k] = v end
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(record))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if excess > 0 then
  local old = redis.call('ZRANGE', KEYS[2], 0, excess - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, excess - 1)
  redis.call('HDEL', KEYS[1], unpack(old))
end
for name in string.gmatch(ARGV[5], '[^,]+') do
  redis.call('HINCRBY', KEYS[3], name, 1)
  redis.call('HINCRBY', KEYS[4], name, 1)
end
return 1
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    bullbeatMergeRun(
      runs: string,
      index: string,
      counts: string,
      totals: string,
      field: string,
      score: number,
      patch: string,
      limit: number,
      counters: string,
    ): Result<number, Context>;
  }
}

/**
 * The bounded per-schedule history of occurrences. The scheduler writes `enqueued`, `missed` and
 * `skipped` records; workers write `running`, `succeeded`, `failed` and overlap skips. Each write is
 * a merge into the occurrence's record, so writers never overwrite each other's fields.
 */
export class RunHistory {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    /** How many occurrences each schedule keeps. Default: 100. */
    private readonly limit = 100,
  ) {
    if (typeof (redis as Partial<Redis>).bullbeatMergeRun !== 'function') {
      redis.defineCommand('bullbeatMergeRun', { numberOfKeys: 4, lua: MERGE_SCRIPT });
    }
  }

  /**
   * Merge `patch` into the record of occurrence `(scheduleId, fireAt)` and bump `counters`. A field
   * given as `null` is removed.
   */
  async merge(
    scheduleId: string,
    fireAt: number,
    manual: boolean,
    patch: RunPatch,
    counters: readonly RunCounter[] = [],
  ): Promise<void> {
    const k = this.keys;
    await this.redis.bullbeatMergeRun(
      k.runs(scheduleId),
      k.runIndex(scheduleId),
      k.counts(scheduleId),
      k.totals,
      occurrenceField(fireAt, manual),
      fireAt,
      JSON.stringify({ scheduleId, fireAt, ...patch }),
      this.limit,
      counters.join(','),
    );
  }

  /** The newest `limit` records of a schedule, newest first. */
  async list(scheduleId: string, limit = this.limit): Promise<RunRecord[]> {
    const fields = await this.redis.zrevrange(this.keys.runIndex(scheduleId), 0, limit - 1);
    if (fields.length === 0) return [];
    const values = await this.redis.hmget(this.keys.runs(scheduleId), ...fields);
    return values.flatMap((v) => (v ? [JSON.parse(v) as RunRecord] : []));
  }

  /** One occurrence's record, or null. */
  async get(scheduleId: string, fireAt: number, manual = false): Promise<RunRecord | null> {
    const v = await this.redis.hget(this.keys.runs(scheduleId), occurrenceField(fireAt, manual));
    return v ? (JSON.parse(v) as RunRecord) : null;
  }

  /** A schedule's counters (missing ones are 0). */
  async counts(scheduleId: string): Promise<Record<RunCounter, number>> {
    return toCounts(await this.redis.hgetall(this.keys.counts(scheduleId)));
  }

  /** The counters summed over every schedule. */
  async totals(): Promise<Record<RunCounter, number>> {
    return toCounts(await this.redis.hgetall(this.keys.totals));
  }

  /** Forget a schedule's history and counters (the totals keep what it contributed). */
  async clear(scheduleId: string): Promise<void> {
    const k = this.keys;
    await this.redis.del(k.runs(scheduleId), k.runIndex(scheduleId), k.counts(scheduleId));
  }
}

function toCounts(raw: Record<string, string>): Record<RunCounter, number> {
  return {
    runs: Number(raw.runs ?? 0),
    errors: Number(raw.errors ?? 0),
    skipped: Number(raw.skipped ?? 0),
    missed: Number(raw.missed ?? 0),
  };
}
