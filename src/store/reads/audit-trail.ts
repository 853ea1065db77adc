import type { Redis } from 'ioredis';
import { type AuditEntry, decodeAuditEntry } from '../forms/index.js';
import type { Keys } from '../keys/index.js';

/** A page of a trail: `before` an entry id (exclusive), newest first. */
export interface AuditQuery {
  /** At most this many entries. Default 50. */
  limit?: number;
  /** Only entries older than this entry id (the `id` of the last entry of the previous page). */
  before?: string;
}

/** The readers of the audit trails; the writes are the change scripts' own. */
export class AuditTrail {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /** A schedule's entries, newest first (a removed schedule's while its trail is kept). */
  async list(scheduleId: string, query: AuditQuery = {}): Promise<AuditEntry[]> {
    const limit = query.limit ?? 50;
    const end = query.before === undefined ? '+' : `(${query.before}`;
    const raw = (await this.redis.xrevrange(this.keys.audit(scheduleId), end, '-', 'COUNT', limit)) as [
      string,
      string[],
    ][];
    return raw.map(([id, flat]) => decodeAuditEntry(scheduleId, id, flat));
  }

  /** The newest `count` entries of each schedule of `ids`, in one round trip (pipelined), newest first per schedule. */
  async newestOf(
    ids: readonly string[],
    count: number,
  ): Promise<{ scheduleId: string; entry: AuditEntry }[]> {
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.xrevrange(this.keys.audit(id), '+', '-', 'COUNT', count);
    const replies = (await pipe.exec()) ?? [];
    return replies.flatMap(([err, raw], i) =>
      err
        ? []
        : (raw as [string, string[]][]).map(([sid, flat]) => ({
            scheduleId: ids[i] as string,
            entry: decodeAuditEntry(ids[i] as string, sid, flat),
          })),
    );
  }

  /** How long (ms) a removed schedule's trail is still kept: null while it has no expiry, or none. */
  async expiresInMs(scheduleId: string): Promise<number | null> {
    const ms = await this.redis.pttl(this.keys.audit(scheduleId));
    return ms >= 0 ? ms : null;
  }
}
