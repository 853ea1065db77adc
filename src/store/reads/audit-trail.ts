import type { Redis } from 'ioredis';
import { type AuditEntry, compareStreamIds, decodeAuditEntry, firstAuditEntry } from '../forms/index.js';
import type { Keys } from '../keys/index.js';

/** A page of a trail: `before` an entry id (exclusive), newest first. */
export interface AuditQuery {
  /** At most this many entries. Default 50. */
  limit?: number;
  /** Only entries older than this entry id (the `id` of the last entry of the previous page). */
  before?: string;
}

type RawEntry = [string, string[]];

/**
 * The readers of the audit trails; the writes are the change scripts' own (includes/audit.lua). A
 * trail is its stream (`keys.audit`) and, while its `create` is its only entry, that entry in its
 * partition's first-entry hash (`keys.auditFirst`) instead: read as one trail, in id order.
 */
export class AuditTrail {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /** A schedule's entries, newest first (a removed schedule's while its trail is kept). */
  async list(scheduleId: string, query: AuditQuery = {}): Promise<AuditEntry[]> {
    const limit = query.limit ?? 50;
    const end = query.before === undefined ? '+' : `(${query.before}`;
    const [page, first] = await Promise.all([
      this.redis.xrevrange(this.keys.audit(scheduleId), end, '-', 'COUNT', limit) as Promise<RawEntry[]>,
      this.firstOf([scheduleId]),
    ]);
    return this.merge(scheduleId, page, first.get(scheduleId), limit, query.before);
  }

  /** The newest `count` entries of each schedule of `ids`, in one round trip (pipelined), newest first per schedule. */
  async newestOf(
    ids: readonly string[],
    count: number,
  ): Promise<{ scheduleId: string; entry: AuditEntry }[]> {
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.xrevrange(this.keys.audit(id), '+', '-', 'COUNT', count);
    const [replies, first] = await Promise.all([pipe.exec(), this.firstOf(ids)]);
    return (replies ?? []).flatMap(([err, raw], i) => {
      const scheduleId = ids[i] as string;
      const page = err ? [] : (raw as RawEntry[]);
      return this.merge(scheduleId, page, first.get(scheduleId), count).map((entry) => ({
        scheduleId,
        entry,
      }));
    });
  }

  /** How long (ms) a removed schedule's trail is still kept: null while it has no expiry, or none. */
  async expiresInMs(scheduleId: string): Promise<number | null> {
    const ms = await this.redis.pttl(this.keys.audit(scheduleId));
    return ms >= 0 ? ms : null;
  }

  /**
   * The first entries kept in the first-entry hashes of `ids` (those that have one), as stream
   * entries: the definition they created is the one stored, or, where a stream was written beside it
   * (by an earlier release, which appends to the stream alone), the `before` of that stream's oldest
   * entry that has one (what includes/audit.lua's settle writes). One with neither a definition nor a
   * stream is left over from a schedule an earlier release removed, whose trail has expired: none.
   */
  private async firstOf(ids: readonly string[]): Promise<Map<string, RawEntry>> {
    // one pipeline per schedule: its three keys share its partition's slot (a cluster's pipeline must)
    const found = await Promise.all(
      ids.map(async (id) => {
        const replies =
          (await this.redis
            .pipeline()
            .hget(this.keys.auditFirst(id), id)
            .hget(this.keys.of(id).schedules, id)
            .exists(this.keys.audit(id))
            .exec()) ?? [];
        const [value, stored, streamed] = replies.map(([, v]) => v);
        if (typeof value !== 'string') return undefined;
        // left by a removed schedule whose stream has expired (a remove by an earlier release): no trail
        if (stored === null && streamed !== 1) return undefined;
        const before = streamed === 1 ? await this.oldestBefore(id) : undefined;
        const entry = firstAuditEntry(value, before ?? (stored as string | null));
        return entry && ([id, [entry.streamId, entry.flat]] as [string, RawEntry]);
      }),
    );
    return new Map(found.filter((f) => f !== undefined));
  }

  /** The `before` of the oldest entry of a schedule's stream that has one (undefined: none). */
  private async oldestBefore(scheduleId: string): Promise<string | undefined> {
    for (const [, flat] of (await this.redis.xrange(this.keys.audit(scheduleId), '-', '+')) as RawEntry[]) {
      for (let j = 0; j + 1 < flat.length; j += 2) if (flat[j] === 'before') return flat[j + 1];
    }
    return undefined;
  }

  /** One page: the stream's entries and the first entry (when it is below `before`), newest first. */
  private merge(
    scheduleId: string,
    page: RawEntry[],
    first: RawEntry | undefined,
    limit: number,
    before?: string,
  ): AuditEntry[] {
    const all = [...page];
    if (first && (before === undefined || compareStreamIds(first[0], before) < 0)) all.push(first);
    all.sort((a, b) => compareStreamIds(b[0], a[0]));
    return all.slice(0, limit).map(([id, flat]) => decodeAuditEntry(scheduleId, id, flat));
  }
}
