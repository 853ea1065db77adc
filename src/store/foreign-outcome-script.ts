import type { Redis, Result } from 'ioredis';
import type { Keys } from './keys.js';
import type { RunRecord } from './run-record.js';

/**
 * Record the outcome of an occurrence that a consumer other than bullbeat's worker runtime ran, once.
 * Written only while the record is still `enqueued` (for the same job id), or when there is no record
 * yet (the consumer finished before the scheduler's completion wrote `enqueued`) and the schedule
 * still exists and the record would be kept by the history bound. Any other record (`running`,
 * `succeeded`, ... written by a bullbeat worker, or this outcome already recorded by another replica)
 * is left alone, so the counters move exactly once whatever number of replicas observe the event.
 * KEYS: runs hash, run index, per-schedule counts, totals, schedules.
 * ARGV: field, score (fire time), schedule id, job id, JSON patch, history limit, counters
 * (comma-separated), the occurrence's kind (for a record written first). Returns 1 when written, 0
 * when left alone.
 */
const FOREIGN_OUTCOME = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local rec
if cur then
  rec = cjson.decode(cur)
  if rec.outcome ~= 'enqueued' then return 0 end
  if rec.jobId and rec.jobId ~= ARGV[4] then return 0 end
else
  if redis.call('HEXISTS', KEYS[5], ARGV[3]) == 0 then return 0 end
  local limit = tonumber(ARGV[6])
  if redis.call('ZCARD', KEYS[2]) >= limit then
    local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    if oldest[2] and tonumber(ARGV[2]) <= tonumber(oldest[2]) then return 0 end
  end
  rec = { kind = ARGV[8] }
end
for k, v in pairs(cjson.decode(ARGV[5])) do rec[k] = v end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(rec))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[6])
if excess > 0 then
  local old = redis.call('ZRANGE', KEYS[2], 0, excess - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, excess - 1)
  redis.call('HDEL', KEYS[1], unpack(old))
end
for name in string.gmatch(ARGV[7], '[^,]+') do
  redis.call('HINCRBY', KEYS[3], name, 1)
  redis.call('HINCRBY', KEYS[4], name, 1)
end
return 1
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    bullbeatForeignOutcome(
      runs: string,
      index: string,
      counts: string,
      totals: string,
      schedules: string,
      field: string,
      score: number,
      scheduleId: string,
      jobId: string,
      patch: string,
      limit: number,
      counters: string,
      kind: string,
    ): Result<number, Context>;
  }
}

/** One finished occurrence as BullMQ tells it. */
export interface ForeignOutcome {
  scheduleId: string;
  fireAt: number;
  /** The record field (`occurrenceField`): the fire time, or `m<time>` for a manual run. */
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

/** Write a foreign outcome (see the script above): true when written and counted, false when left alone. */
export async function recordForeignOutcome(
  redis: Redis,
  k: Keys,
  historyLimit: number,
  o: ForeignOutcome,
): Promise<boolean> {
  if (typeof (redis as Partial<Redis>).bullbeatForeignOutcome !== 'function') {
    redis.defineCommand('bullbeatForeignOutcome', { numberOfKeys: 5, lua: FOREIGN_OUTCOME });
  }
  const patch: Partial<RunRecord> = {
    scheduleId: o.scheduleId,
    fireAt: o.fireAt,
    outcome: o.outcome,
    consumer: 'foreign',
    queue: o.queue,
    jobId: o.jobId,
    ...(o.startedAt !== undefined && { startedAt: o.startedAt }),
    ...(o.finishedAt !== undefined && { finishedAt: o.finishedAt }),
    ...(o.attempts !== undefined && { attempts: o.attempts }),
    ...(o.error !== undefined && { error: o.error }),
  };
  const written = await redis.bullbeatForeignOutcome(
    k.runs(o.scheduleId),
    k.runIndex(o.scheduleId),
    k.counts(o.scheduleId),
    k.totals,
    k.schedules,
    o.field,
    o.fireAt,
    o.scheduleId,
    o.jobId,
    JSON.stringify(patch),
    historyLimit,
    o.outcome === 'failed' ? 'runs,errors' : 'runs',
    o.kind,
  );
  return written === 1;
}
