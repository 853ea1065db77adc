import type { Redis } from 'ioredis';
import { type AuditActor, type AuditEntry, decodeAuditEntry, RUNTIME_ACTOR } from './audit-entry.js';
import type { Keys } from './keys.js';

/** How a deployment keeps its audit trails (see `SchedulerManagerOptions.auditLimit`). */
export interface AuditConfig {
  /** Entries kept per schedule, newest first (0: no trail). */
  limit: number;
  /** How long a removed schedule's trail is kept (ms; 0: deleted with it). */
  retentionMs: number;
}

/** The defaults: 100 entries per schedule, kept 7 days after a remove. */
export const DEFAULT_AUDIT: AuditConfig = { limit: 100, retentionMs: 7 * 24 * 3600 * 1000 };

/** The four audit ARGV every change script takes (includes/audit.lua): limit, actor, source, onBehalfOf. */
export function auditArgs(
  config: AuditConfig,
  who: AuditActor = RUNTIME_ACTOR,
): [number, string, string, string] {
  return [config.limit, who.actor, who.source, who.onBehalfOf ?? ''];
}

/** Who writes a change, and the trails' bounds: what a change script's four audit ARGV say. */
export interface AuditBy {
  audit: AuditConfig;
  /** Default: bullbeat itself. */
  by?: AuditActor | undefined;
}

/** A change script's audit ARGV by their slot names (`script-layouts.ts`). */
export function auditSlots(a: AuditBy): {
  auditLimit: number;
  auditActor: string;
  auditSource: string;
  auditOnBehalfOf: string;
} {
  const [auditLimit, auditActor, auditSource, auditOnBehalfOf] = auditArgs(a.audit, a.by);
  return { auditLimit, auditActor, auditSource, auditOnBehalfOf };
}

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
